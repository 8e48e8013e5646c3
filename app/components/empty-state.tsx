import { Link } from "react-router";
import { paths } from "#app/lib/paths.ts";

/** An empty result with the spec's text and, for visitors, a way to sign in and add what is missing. */
export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="empty-state" role="status">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

export function SignInPrompt({ action, redirectTo }: { action: string; redirectTo: string }) {
  return (
    <p>
      <Link to={paths.signIn(redirectTo)}>Sign in</Link> to {action}.
    </p>
  );
}
