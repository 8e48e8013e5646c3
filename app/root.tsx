import { isRouteErrorResponse, Link, Links, Meta, Outlet, Scripts, ScrollRestoration } from "react-router";
import type { Route } from "./+types/root.ts";
import { GlobalSpinner } from "./components/global-spinner.tsx";
import { Toast } from "./components/toast.tsx";
import { NotFound } from "./components/not-found.tsx";
import { SiteFooter } from "./components/site-footer.tsx";
import { SiteHeader } from "./components/site-header.tsx";
import { paths } from "./lib/paths.ts";
import { type LoadFailure, loadingOr } from "./http/load-failure.server.ts";
import { publicationSettings } from "./domain/publication.server.ts";
import { PublicationNote, ReviewKeyNote } from "./components/publication-note.tsx";
import { contributionMessages, messages, publicationNote } from "./lib/messages.ts";
import { verificationMessages } from "./lib/verification-messages.ts";
import { verificationSettings } from "./domain/verification.server.ts";
import {
  accountContext,
  clearBadgeNoteCookie,
  readBadgeNote,
  clearPublicationNoteCookie,
  clearReviewKeyCookie,
  clearToastCookie,
  isSignedIn,
  loadAccount,
  readPublicationNote,
  readReviewKey,
  readToast,
  toastContext,
} from "./http/session.server.ts";
import stylesheet from "./styles/app.css?url";
import interLatin from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2?url";

/** Once per request: who is signed in, and whether a toast is waiting (then cleared, so it shows once). */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, context }, next) => {
    // The spec's session wrapper: if who is signed in cannot be read, the page says so ("Error context; signin: …").
    context.set(accountContext, await loadingOr("signin", () => loadAccount(request)));
    const toast = readToast(request);
    context.set(toastContext, toast);
    const response = await next();
    if (toast) response.headers.append("Set-Cookie", clearToastCookie());
    if (readPublicationNote(request)) response.headers.append("Set-Cookie", clearPublicationNoteCookie);
    if (readBadgeNote(request)) response.headers.append("Set-Cookie", clearBadgeNoteCookie);
    if (readReviewKey(request)) response.headers.append("Set-Cookie", clearReviewKeyCookie);
    return response;
  },
];

/** Only whether someone is signed in: no id or e-mail in the data of pages that show reviews. */
export function loader({ context, request }: Route.LoaderArgs) {
  const note = readPublicationNote(request);
  const badge = readBadgeNote(request);
  return {
    signedIn: isSignedIn(context),
    toast: context.get(toastContext),
    publicationNote: note ? publicationNote(note, publicationSettings()) : null,
    badgeNote: badge
      ? badge.shown
        ? verificationMessages.badgeComing(badge.domain)
        : verificationMessages.badgeWithheld(badge.domain, verificationSettings().minPeople)
      : null,
    /** Whether the token sent with the review came back unspent (below the threshold): the browser keeps it. */
    badgeShown: badge ? badge.shown : null,
    /** The author's own one-time key, after their submission only: never cached (the request has cookies). */
    reviewKey: readReviewKey(request),
  };
}

/** The typeface's Latin file is fetched with the stylesheet, so text is drawn once in it rather than swapped late. */
export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "preload", href: interLatin, as: "font", type: "font/woff2", crossOrigin: "anonymous" },
];

export function Layout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {/* With a precedence, React writes the stylesheet ahead of the scripts' modulepreload links (which
            app/http/scripts-after-paint.server.ts holds until the first paint), so it is requested first. */}
        <link rel="stylesheet" href={stylesheet} precedence="default" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <SiteHeader />
        <GlobalSpinner />
        <Toast />
        <main id="main" tabIndex={-1}>
          <PublicationNote />
          <ReviewKeyNote />
          {children}
        </main>
        <SiteFooter />
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <NotFound />;
  }
  // A browser request that never reached us ("Failed to fetch") is the network's fault, not the site's.
  const offline = error instanceof TypeError && /failed to fetch|network/i.test(error.message);
  const unavailable = isRouteErrorResponse(error) && error.status === 503;
  // A page whose data could not be read says which (the spec's "Error loading companies: {message}" and its kin).
  const loadFailure = isRouteErrorResponse(error) ? (error.data as Partial<LoadFailure> | null) : null;
  const failure: unknown = loadFailure?.failureText;
  const detail: unknown = loadFailure?.failureDetail;
  return (
    <section className="page narrow">
      <title>{`${messages.unexpectedError} · ${messages.siteName}`}</title>
      <h1>{messages.unexpectedError}</h1>
      <p role="alert">
        {offline
          ? contributionMessages.network
          : typeof failure === "string"
            ? failure
            : unavailable
              ? contributionMessages.unavailable
              : isRouteErrorResponse(error)
                ? `${error.status} ${error.statusText}`
                : contributionMessages.somethingWrong}
      </p>
      {typeof detail === "string" ? <p>{detail}</p> : null}
      <p>
        <Link to={paths.home()}>Back to the search</Link>
      </p>
    </section>
  );
}
