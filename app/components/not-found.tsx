import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** The page for an address that leads nowhere (status 404). */
export function NotFound() {
  return (
    <section className="page narrow">
      <title>{`Page not found · ${messages.siteName}`}</title>
      <h1>Page not found</h1>
      <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <Link to={paths.home()}>Search companies and managers</Link>
      </p>
    </section>
  );
}
