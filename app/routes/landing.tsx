import { Link } from "react-router";
import { AboutText, SidePanel } from "#app/components/side-panel.tsx";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

export default function LandingPage() {
  return (
    <div className="with-side-panel">
      <section className="page hero">
        <title>{`${messages.siteName} · ${messages.tagline}`}</title>
        <h1>{messages.tagline}</h1>
        <p className="lead">
          Honest, anonymous reviews of managers and companies, written by the people who work for them.
        </p>
        <p className="hero-actions">
          <Link to={paths.home()} className="button">
            Home
          </Link>
          <Link to={paths.signIn()} className="button button-secondary">
            Login
          </Link>
        </p>
        <AboutText />
      </section>
      <SidePanel />
    </div>
  );
}
