import { Link } from "react-router";
import type { Route } from "./+types/privacy.ts";
import { verificationSettings } from "#app/domain/verification.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

export function loader() {
  return { minPeople: verificationSettings().minPeople };
}

export default function PrivacyPage({ loaderData }: Route.ComponentProps) {
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
          least three accounts, and nothing stored tells when it was sent, only which publication it was part of.
          Someone who seizes the running server can read the reviews still waiting to be published, but nothing in them
          says which account sent them: what marks them as one account&apos;s is made with your account key, which only
          you hold.
        </li>
        <li>
          <strong>The people who run this site</strong> could see your account and your review together if they changed
          its code to watch submissions as they happen. No site where you sign in to post can rule that out, so we say
          it rather than promise otherwise. A review of a manager sent from its review page with JavaScript goes without
          your account: when you start writing, your browser gets a one-time review token while you are signed in, and
          the review later goes with the token alone. Then they could tie the two only by when they came and from which
          network address.
        </li>
      </ul>
      <p>
        To allow only one review per person per manager, we keep a receipt: a one-way hash of the manager made with your
        account key, written when your review is published or, with a review token, when your browser gets the token. It
        holds no review, no date and no time. Your account key is the one your helpful votes use: your browser keeps it
        in a cookie, and we keep it only locked with your password. Nobody holding our database and its secret can tell
        from a receipt that you reviewed a manager without your password. Receipts made before account keys existed were
        keyed with the site&apos;s secret key: whoever holds it can learn from them that this account reviewed this
        manager, and nothing more. Never which review is yours, because a manager&apos;s reviews are only ever published
        in groups of at least three.
      </p>
      <h2>Verifying your work address</h2>
      <p>
        You may <Link to={paths.verifyWork()}>verify your work address</Link> so that your reviews of its companies and
        their managers can show “Verified: works at example.com”. We mail a code to the address. While the code waits,
        we keep a record of it that only your browser can open: it does not show us, or anyone holding our database and
        secret key, which address, domain or account it is for. Once you type the code, we keep a keyed fingerprint of
        the address until the end of the quarter, so each address verifies once a quarter, and then delete it; whoever
        holds our database and secret key can check whether an address they guess verified this quarter, but not which
        account asked. Nothing we store names the account that asked: the limit on codes per account is counted in the
        server&apos;s memory only.
      </p>
      <p>
        After the code, your browser makes a few tokens and has us sign them without showing them to us. When a review
        carries one, we can check our signature, but we cannot tell which verification, account or person it came from,
        and neither can anyone who later gets a copy of this server. We keep only a fingerprint of a used token, so it
        cannot be used twice, and we write it when the review is published, with other people&apos;s reviews. There is
        one signing key per domain and quarter, listed publicly, and your browser checks it, so we cannot give you a key
        of your own to recognise you by.
      </p>
      <p>What it does reveal:</p>
      <ul>
        <li>
          <strong>Your employer&apos;s mail server</strong> sees that a code from us arrived for you. If that could harm
          you, do not verify.
        </li>
        <li>
          <strong>Everyone</strong> sees the domain on your review, and can see that someone from that domain verified
          this quarter. The badge appears only once at least {loaderData.minPeople} people from the domain have verified
          that quarter; until then your review is published without it, and we tell you so.
        </li>
        <li>
          <strong>Your words.</strong> The badge says you are one of the people at that domain. What you write, and how,
          can narrow that down. Leave out details only you would know.
        </li>
      </ul>
      <p>
        The tokens stay in this browser only (its local storage), never with your account; clearing the browser&apos;s
        data deletes them.
      </p>
      <h2>Helpful votes</h2>
      <p>
        When you mark a review as helpful, we store a one-way hash of the review made with a key of your account that
        only you hold: your browser keeps it in a cookie, and we keep it only locked with your password. Nobody holding
        our database and its secret can tell whose vote it is, or which reviews you voted for, without your password. We
        count each vote on the review at once, so someone who also holds our logs may learn when a review got a vote.
      </p>
      <h2>Accounts</h2>
      <p>
        An account holds an e-mail address and a password hash (argon2id). Deleting your account deletes both; your
        reviews stay published, because they were never linked to your account. We note the day, never the time, when
        you signed up and signed in. A sign-in lasts 30 days and is not extended while you use the site, so reading and
        contributing write nothing about your sign-in. Signing in writes a record of the new sign-in: on a quiet site,
        someone holding a copy of our database may see that a helpful vote or an appeal came right after it.
      </p>
      <p>
        Deleting also erases your address and hash from the database&apos;s files: at once on the built-in database; on
        PostgreSQL, the tables are rewritten at once and the database&apos;s log of changes that recorded them is
        removed seconds later, when the site&apos;s operator has set PostgreSQL up as our deployment guide says
        (otherwise it stays until PostgreSQL removes that log on its own). Backups made before the deletion keep them
        until they are deleted. Withdrawing a review erases its text the same way.
      </p>
      <h2>Reports</h2>
      <p>
        A report of a review stores the review, the reason and your explanation, never who you are. If you leave an
        e-mail address for the decision, we use it once to send the decision and then erase it.
      </p>
      <h2>Logs</h2>
      <p>
        {messages.ipLogged} We log a keyed hash of the address for rate limiting, never next to a review, and delete it
        after 30 days. Request logs hold the method, the kind of page (never which company, manager or review) and the
        status, dated to the minute, without IP addresses or cookies.
      </p>
      <h2>No tracking</h2>
      <p>There are no third-party analytics, advertising trackers or session recordings on this site.</p>
      <h2>Ownership</h2>
      <p>{messages.dataOwnership}</p>
    </article>
  );
}
