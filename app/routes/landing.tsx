import { Form, Link } from "react-router";
import { LogoMark } from "#app/components/logo.tsx";
import { AboutText, SidePanel } from "#app/components/side-panel.tsx";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";

/** How a review stays anonymous, in three steps (docs/anonymity.md says it in full). */
const steps = [
  {
    title: "You write",
    text: "Rate a manager or a company on a 1 to 5 scale, answer a few questions and say what you saw.",
  },
  {
    title: "It waits, sealed",
    text: "Your review is never stored with your account, e-mail or address. It waits in a sealed queue.",
  },
  {
    title: "It appears with others",
    text: "Reviews are published in shuffled batches, dated by month, so nobody can tell which one is yours.",
  },
];

export default function LandingPage() {
  const signedIn = useSignedIn();
  return (
    <div className="landing">
      <title>{`${messages.siteName} · ${messages.tagline}`}</title>
      <section className="hero" aria-labelledby="hero-title">
        <LogoMark size={56} />
        <h1 id="hero-title">{messages.tagline}</h1>
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
      </section>
      <section className="steps" aria-labelledby="steps-title">
        <h2 id="steps-title">Anonymous by construction</h2>
        <ol className="step-cards">
          {steps.map((step) => (
            <li key={step.title} className="card step-card">
              <h3>{step.title}</h3>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
      </section>
      <AboutText />
      <SidePanel layout="cards" />
    </div>
  );
}
