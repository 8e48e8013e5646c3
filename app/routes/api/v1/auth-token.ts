import { z } from "zod";
import type { Route } from "./+types/auth-token.ts";
import { database } from "#app/db/database.server.ts";
import { passwordGrant, refreshTokenPair } from "#app/domain/api-tokens.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiFailure } from "#app/http/api.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { accountKey, clientContext } from "#app/http/client.server.ts";
import { json, problem } from "#app/http/problem.server.ts";
import { beginPasswordAttempt, consume } from "#app/lib/rate-limit.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { voteKeyAfterPassword } from "#app/http/vote-key.server.ts";

const grantSchema = z.discriminatedUnion("grant_type", [
  z.object({
    grant_type: z.literal("password"),
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(1000),
    totp_code: z
      .string()
      .regex(/^\d{6}$/, "must be 6 digits")
      .optional(),
  }),
  z.object({ grant_type: z.literal("refresh_token"), refresh_token: z.string().min(1).max(200) }),
]);

export function loader() {
  return problem(405, "Use POST.", {}, { headers: { Allow: "POST" } });
}

/** POST /api/v1/auth/token: sign in (grant_type=password) or refresh (grant_type=refresh_token). */
export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST") return problem(405, "Use POST.", {}, { headers: { Allow: "POST" } });
  const body = await readBody(request, grantSchema);
  if (!body.ok) return body.response;
  const { ipKey } = context.get(clientContext);
  try {
    if (body.data.grant_type === "refresh_token") {
      await consume("tokenRefresh", ipKey);
      const outcome = await refreshTokenPair(database().db, body.data.refresh_token);
      if (!outcome.ok) {
        const detail =
          outcome.reason === "reused"
            ? "This refresh token was already used: every token of its session is revoked. Sign in again."
            : "This refresh token is invalid or has expired. Sign in again.";
        return problem(401, detail, { code: outcome.reason === "reused" ? "refresh_token_reused" : "invalid_grant" });
      }
      return json(outcome.pair);
    }
    const attempt = await beginPasswordAttempt(ipKey, accountKey(serverSecret(), body.data.email));
    const grant = await passwordGrant(
      auth(),
      database().db,
      { email: body.data.email, password: body.data.password, totpCode: body.data.totp_code },
      new Headers(),
    );
    if (!grant.ok) return problem(401, grant.message, { code: grant.reason });
    await attempt.succeeded();
    // The account's vote key, for the client to send with its votes: the server keeps it only wrapped (decision 0016).
    return json({ ...grant.pair, vote_key: await voteKeyAfterPassword(body.data.email, body.data.password) });
  } catch (error) {
    return apiFailure(error);
  }
}
