import { messages } from "#app/lib/messages.ts";

export default function PrivacyPage() {
  return (
    <article className="page narrow prose">
      <title>{`Privacy · ${messages.siteName}`}</title>
      <h1>What we store, and what we never store</h1>
      <h2>Reviews</h2>
      <p>
        A review is stored with its ratings, answers, tags, text and the company or manager it is about. It is never
        stored with an account, an e-mail address, an IP address or a session.
      </p>
      <p>
        A review is not published the moment you send it. It waits, sealed with a key kept outside the database, and is
        published later together with other people's reviews, in random order, dated with the month of publication. A
        manager's reviews appear only once at least three of them can be published together.
      </p>
      <h2>Who can tell that you wrote a review</h2>
      <ul>
        <li>
          <strong>Visitors and other users</strong> cannot: no page, API answer or change in the site's pages points at
          you.
        </li>
        <li>
          <strong>Whoever later gets a copy of this server</strong> (its database, secret key, logs or backups, through
          a breach or a court order) cannot tell which published review is yours: each one could have been written by at
          least three accounts, and nothing stored tells when it was sent, only which publication it was part of. A
          review still waiting to be published is not protected from someone who seizes the running server.
        </li>
        <li>
          <strong>The people who run this site</strong> could see your account and your review together if they changed
          its code to watch submissions as they happen. No site where you sign in to post can rule that out, so we say
          it rather than promise otherwise.
        </li>
      </ul>
      <p>
        To allow only one review per person per manager, we keep a receipt: a keyed one-way hash of your account and the
        manager. It holds no review, no date and no time. Whoever holds the site's secret key can learn from it that
        this account reviewed this manager, and nothing more: never which review is yours, because a manager's reviews
        are only ever published in groups of at least three.
      </p>
      <h2>Accounts</h2>
      <p>
        An account holds an e-mail address and a password hash (argon2id). Deleting your account deletes both; your
        reviews stay published, because they were never linked to your account.
      </p>
      <h2>Reports</h2>
      <p>
        A report of a review stores the review, the reason and your explanation, never who you are. If you leave an
        e-mail address for the decision, we use it once to send the decision and then erase it.
      </p>
      <h2>Logs</h2>
      <p>
        {messages.ipLogged} We log a keyed hash of the address for rate limiting, never next to a review, and delete it
        after 30 days. Request logs hold the method, the address of the page and the status, without IP addresses or
        cookies.
      </p>
      <h2>No tracking</h2>
      <p>There are no third-party analytics, advertising trackers or session recordings on this site.</p>
      <h2>Ownership</h2>
      <p>{messages.dataOwnership}</p>
    </article>
  );
}
