import { CompanyNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/managers.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { AddPrompt, EmptyState } from "#app/components/empty-state.tsx";
import { companyManagers } from "#app/domain/managers.server.ts";
import { plural } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyOfQuery } from "#app/http/query-subjects.server.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { loadingOr } from "#app/http/load-failure.server.ts";

export function loader({ request }: Route.LoaderArgs) {
  return loadingOr("managers", () => managersPage(request));
}

async function managersPage(request: Request) {
  const company = await companyOfQuery(request);
  if (!company) return data({ company: null, managers: null }, { status: 404 });
  const after = new URL(request.url).searchParams.get("after");
  const managers = await companyManagers(readerFor(request), company.id, after);
  return { company: { id: company.id, name: company.name }, managers };
}

export default function ManagersPage({ loaderData }: Route.ComponentProps) {
  const { company, managers } = loaderData;
  const signedIn = useSignedIn();
  if (!company || !managers) {
    return <CompanyNotFound />;
  }
  return (
    <section className="page">
      <title>{`Managers at ${company.name} · ${messages.siteName}`}</title>
      <p className="breadcrumb">
        <Link to={paths.company(company.id)}>{company.name}</Link>
      </p>
      <h1>Managers at {company.name}</h1>
      {managers.items.length === 0 && !signedIn ? (
        <EmptyState title={messages.nothingHere}>
          <AddPrompt to={paths.addManager(company.id)} label={messages.addOneHere} signedOutAction="add a manager" />
        </EmptyState>
      ) : (
        <ul className="card-list">
          {managers.items.map((manager) => (
            <li key={manager.id} className="card result-card">
              <h2 className="card-title">
                <Link to={paths.manager(manager.id)}>
                  {manager.firstName} {manager.lastName}
                </Link>{" "}
                <DemoBadge show={manager.isDemo} />
              </h2>
              <p className="muted">{manager.title}</p>
              <p className="muted">{plural(manager.reviewCount, "review", "reviews")}</p>
            </li>
          ))}
        </ul>
      )}
      {managers.next ? (
        <Link className="more-link" to={paths.companyManagers(company.id, managers.next)}>
          More managers
        </Link>
      ) : null}
      {signedIn ? (
        <p className="add-manager">
          {messages.managerMissingPrompt} <Link to={paths.addManager(company.id)}>{messages.addOneHere}</Link>
        </p>
      ) : null}
    </section>
  );
}
