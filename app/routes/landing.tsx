import { Form, Link } from "react-router";
import { AboutText, SidePanel } from "#app/components/side-panel.tsx";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";

export default function LandingPage() {
  const signedIn = useSignedIn();
  return (
    <div className="with-side-panel">
      <section className="page hero">
        <title>{`${messages.siteName} · ${messages.tagline}`}</title>
        <h1>{messages.tagline}</h1>
        <p className="lead">
          Honest, anonymous reviews of managers and companies, written by the people who work for them.
        </p>
        {/* The spec's Home button, and the session's own action beside it, named as in the header. */}
        <div className="hero-actions">
          <Link to={paths.home()} className="button">
            Home
          </Link>
          {signedIn ? (
            <Form method="post" action={paths.signOut()}>
              <button type="submit" className="button button-secondary">
                {messages.signOut}
              </button>
            </Form>
          ) : (
            <Link to={paths.signIn()} className="button button-secondary">
              {messages.signIn}
            </Link>
          )}
        </div>
        <AboutText />
      </section>
      <SidePanel />
    </div>
  );
}
