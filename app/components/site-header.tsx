import { Form, Link, NavLink, useLocation } from "react-router";
import { Logo } from "./logo.tsx";
import { messages } from "#app/lib/messages.ts";
import { paths, returnTarget } from "#app/lib/paths.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";

export function SiteHeader() {
  const signedIn = useSignedIn();
  const location = useLocation();
  return (
    <header className="site-header">
      <div className="site-header-inner">
        <Link to={paths.home()} className="brand">
          <Logo name={messages.siteName} />
          <span className="brand-tagline">{messages.tagline}</span>
        </Link>
        <nav aria-label="Main">
          <ul className="nav-list">
            <li>
              <NavLink to={paths.search()}>Search</NavLink>
            </li>
            <li>
              <NavLink to={paths.guidelines()}>Guidelines</NavLink>
            </li>
            {signedIn ? (
              <>
                <li>
                  <NavLink to={paths.account()}>Account</NavLink>
                </li>
                <li>
                  <Form method="post" action={paths.signOut()}>
                    <button type="submit" className="button button-small">
                      {messages.signOut}
                    </button>
                  </Form>
                </li>
              </>
            ) : (
              <li>
                <NavLink
                  to={paths.signIn(returnTarget(location.pathname, location.search))}
                  className="button button-small"
                >
                  {messages.signIn}
                </NavLink>
              </li>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}
