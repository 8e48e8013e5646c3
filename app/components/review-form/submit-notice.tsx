import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** What happens to submitted data, said where people write (docs/data-model.md, what is never stored). */
export function SubmitNotice() {
  return (
    <p className="submit-notice">
      {messages.dataOwnership} {messages.ipLogged} Your review is never linked to your account.{" "}
      <Link to={paths.privacy()}>What we store</Link> · <Link to={paths.guidelines()}>Posting guidelines</Link>
    </p>
  );
}
