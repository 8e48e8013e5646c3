import { feedMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

type Props = { kind: "company" | "manager" | "country" | "industry"; subjectKey: number | string; title: string };

/**
 * The feeds of a page's new reviews: announced in the head (feed readers and browsers find them there) and offered
 * as a visible link. Following one is reading a page like any other: nothing about the reader is kept.
 */
export function FeedLinks({ kind, subjectKey, title }: Props) {
  return (
    <>
      <link rel="alternate" type="application/atom+xml" title={title} href={paths.feed(kind, subjectKey)} />
      <link rel="alternate" type="application/feed+json" title={title} href={paths.feed(kind, subjectKey, "json")} />
      <a href={paths.feed(kind, subjectKey)} type="application/atom+xml">
        {feedMessages.follow}
      </a>{" "}
      · <a href={paths.feed(kind, subjectKey, "json")}>{feedMessages.followJson}</a>
    </>
  );
}
