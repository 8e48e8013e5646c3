import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** Spec: an unknown company shows "No Company Found" with "Search again?" (and the loader answers 404). */
export function CompanyNotFound() {
  return (
    <section className="page narrow">
      <title>{`${messages.noCompanyFound} · ${messages.siteName}`}</title>
      <h1>{messages.noCompanyFound}</h1>
      <p>
        <Link to={paths.search()}>{messages.searchAgain}</Link>
      </p>
    </section>
  );
}

/** Spec: an unknown manager shows "No Manager Profile Found" and "No manager data found.". */
export function ManagerNotFound() {
  return (
    <section className="page narrow">
      <title>{`${messages.noManagerProfileFound} · ${messages.siteName}`}</title>
      <h1>{messages.noManagerProfileFound}</h1>
      <p>{messages.noManagerDataFound}</p>
      <p>
        <Link to={paths.search({ kind: "manager" })}>{messages.searchAgain}</Link>
      </p>
    </section>
  );
}
