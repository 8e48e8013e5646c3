import { data, Link } from "react-router";
import type { Route } from "./+types/verify-email.ts";
import { FormMessage } from "#app/components/form.tsx";
import { accountMessages, verifyEmail } from "#app/domain/accounts.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** The link in the confirmation e-mail leads here with ?token=…. */
export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const result = token ? await verifyEmail(auth(), token) : null;
  if (!result?.ok) return data({ verified: false, message: accountMessages.verificationInvalid }, { status: 400 });
  return data({ verified: true, message: accountMessages.emailVerified }, { headers: result.headers });
}

export default function VerifyEmailPage({ loaderData }: Route.ComponentProps) {
  return (
    <section className="page narrow auth-page">
      <title>{`Confirm your e-mail address · ${messages.siteName}`}</title>
      <h1>Confirm your e-mail address</h1>
      <FormMessage
        error={loaderData.verified ? undefined : loaderData.message}
        success={loaderData.verified ? loaderData.message : undefined}
      />
      <p>
        <Link to={loaderData.verified ? paths.search() : paths.account()}>
          {loaderData.verified ? "Start searching" : "Go to your account"}
        </Link>
      </p>
    </section>
  );
}
