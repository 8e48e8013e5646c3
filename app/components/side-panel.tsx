import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/**
 * The spec's side panel: vision, business model, key features, impact, join the movement. Beside the search it is a
 * panel; on the landing page, where it is the content, its parts are a grid of cards.
 */
export function SidePanel({ layout = "panel" }: { layout?: "panel" | "cards" }) {
  const Element = layout === "panel" ? "aside" : "section";
  return (
    <Element
      className={layout === "panel" ? "side-panel" : "about-cards"}
      // Beside the about text on the landing page, the cards need a name of their own.
      aria-label={layout === "panel" ? "About Candor" : "Vision, model and impact"}
    >
      <section>
        <h2>Our vision</h2>
        <p>Workplaces where leaders are known by how they treat people, and where honest feedback is safe to give.</p>
      </section>
      <section>
        <h2>Business model</h2>
        <p>
          Reading is free for everyone. Candor is open source and can be hosted by anyone; we never sell who wrote a
          review, because we never know.
        </p>
      </section>
      <section>
        <h2>Key features</h2>
        <ul>
          <li>Anonymous reviews of managers and companies</li>
          <li>Ratings on a clear 1 to 5 scale across many criteria</li>
          <li>Data analytics for employees and companies</li>
        </ul>
      </section>
      <section>
        <h2>Impact</h2>
        <p>Job seekers choose teams with open eyes; good managers get the recognition they earned.</p>
      </section>
      <section>
        <h2>Join the movement</h2>
        <p>Share what you know about a manager or a company. It takes five minutes and helps the next person.</p>
      </section>
    </Element>
  );
}

/** The short about text; "Learn more" leads to the guidelines (its full name says so to screen readers). */
export function AboutText() {
  return (
    <section className="about" aria-labelledby="about-heading">
      <h2 id="about-heading">About {messages.siteName}</h2>
      <p>
        Employees rate and review their managers and companies anonymously, so everyone can read honest feedback on
        leaders in their company and country.{" "}
        <Link to={paths.guidelines()}>
          {messages.learnMore}
          <span className="visually-hidden">{messages.learnMoreTopic}</span>
        </Link>
      </p>
    </section>
  );
}
