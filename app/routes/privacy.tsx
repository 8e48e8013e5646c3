import { messages } from "#app/lib/messages.ts";

export default function PrivacyPage() {
  return (
    <article className="page narrow prose">
      <title>{`Privacy · ${messages.siteName}`}</title>
      <h1>What we store, and what we never store</h1>
      <h2>Reviews</h2>
      <p>
        A review is stored with its ratings, answers, tags, text, the company or manager it is about, and the day it was
        posted. Pages and the API show only the month and year. A review is never stored with an account, an e-mail
        address, an IP address or a session, so nobody, including the people who run this site, can tell who wrote it.
      </p>
      <p>
        To allow only one review per person per manager, we keep a receipt: a keyed one-way hash of your account and the
        manager. It holds no review, no date and no time, and cannot be turned back into your account.
      </p>
      <h2>Accounts</h2>
      <p>
        An account holds an e-mail address and a password hash (argon2id). Deleting your account deletes both; your
        reviews stay published, because they were never linked to your account.
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
