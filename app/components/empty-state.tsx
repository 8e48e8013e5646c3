import { Link } from "react-router";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";

/** An empty result with the spec's text, and what the visitor can do about it. */
export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="empty-state" role="status">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** Signed in: a link to add what is missing. Signed out: a sign-in link that comes back to that form. */
export function AddPrompt({ to, label, signedOutAction }: { to: string; label: string; signedOutAction: string }) {
  const signedIn = useSignedIn();
  return signedIn ? (
    <p>
      <Link to={to}>{label}</Link>
    </p>
  ) : (
    <p>
      <Link to={paths.signIn(to)}>{messages.signIn}</Link> to {signedOutAction}.
    </p>
  );
}
