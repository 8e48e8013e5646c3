import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

export default function GuidelinesPage() {
  return (
    <article className="page narrow prose">
      <title>{`Posting guidelines · ${messages.siteName}`}</title>
      <h1>Posting guidelines</h1>
      <p>
        {messages.siteName} exists so that people can speak honestly about leadership without risking their jobs. These
        rules keep it useful and fair for everyone, including the managers being reviewed.
      </p>
      <h2>The rules</h2>
      <ol>
        <li>
          <strong>One comment per manager per team.</strong> Review each manager once, about your own experience. You
          can review every manager you have worked for.
        </li>
        <li>
          <strong>No profanity.</strong> Be direct, not abusive. Criticise decisions and behaviour, not a person's
          character, looks or private life.
        </li>
        <li>
          <strong>No personal information.</strong> Do not name colleagues, and do not post e-mail addresses, phone
          numbers, home addresses or anything else that identifies a person, including yourself.
        </li>
        <li>
          <strong>No links.</strong> Reviews stand on their own words. Links to other sites are removed.
        </li>
      </ol>
      <h2>Write a review that helps</h2>
      <ul>
        <li>Describe what happened and how it affected your work, with concrete examples.</li>
        <li>Say what went well as well as what did not.</li>
        <li>Leave out details that only you or a few people could know: they can reveal who wrote the review.</li>
      </ul>
      <h2>Moderation</h2>
      <p>
        Reviews that break these rules may be removed by moderators. Anyone can report a review with the Report link
        under it, signed in or not. Every decision is published in the{" "}
        <Link to={paths.moderationLog()}>moderation log</Link> with its reason and a statement of reasons; a removed
        review leaves a marker in its place and no longer counts in the ratings. In the future, managers may be able to
        reply to reviews from a verified account; a reply never reveals who wrote the review.
      </p>
      <h2>Your anonymity and your data</h2>
      <p>
        {messages.dataOwnership} {messages.ipLogged} Reviews carry no account, e-mail or IP address: read exactly what
        we store on the <Link to={paths.privacy()}>privacy page</Link>.
      </p>
    </article>
  );
}
