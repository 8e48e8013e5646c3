import { Link, useLocation } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

export function SiteFooter() {
  const { pathname } = useLocation();
  const onFeedbackPage = pathname.startsWith(paths.feedback());
  return (
    <footer className="site-footer">
      <ul className="footer-links">
        {onFeedbackPage ? null : (
          <li>
            <Link to={paths.feedback()}>Contact us</Link>
          </li>
        )}
        <li>
          <Link to={paths.guidelines()}>Guidelines</Link>
        </li>
        <li>
          <Link to={paths.moderationLog()}>Moderation log</Link>
        </li>
        <li>
          <Link to={paths.transparency()}>Transparency</Link>
        </li>
        <li>
          <Link to={paths.privacy()}>Privacy</Link>
        </li>
      </ul>
      <p>
        © {new Date().getFullYear()} {messages.siteName}. {messages.tagline}.
      </p>
    </footer>
  );
}
