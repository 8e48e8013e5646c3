import type { Route } from "./+types/auth-user.ts";
import { database } from "#app/db/database.server.ts";
import { bearerAccount } from "#app/http/api-auth.server.ts";
import { apiFailure, readOnlyAction } from "#app/http/api.server.ts";
import { json, problem } from "#app/http/problem.server.ts";

/** GET /api/v1/auth/user: the account of the bearer token (for clients to check their token). */
export async function loader({ request }: Route.LoaderArgs) {
  // A preflight (React Router hands OPTIONS to the loader): answered, but no CORS is granted.
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: { Allow: "GET, HEAD" } });
  try {
    return await currentUser(request);
  } catch (error) {
    return apiFailure(error);
  }
}

async function currentUser(request: Request): Promise<Response> {
  const account = await bearerAccount(request);
  if (!account) {
    return problem(
      401,
      "Send a valid access token: Authorization: Bearer <access_token>.",
      {},
      {
        headers: { "WWW-Authenticate": 'Bearer realm="candor"' },
      },
    );
  }
  const user = await database()
    .db.selectFrom("users")
    .select(["email", "emailVerified", "twoFactorEnabled"])
    .where("id", "=", account.userId)
    .executeTakeFirst();
  if (!user) return problem(401, "This account no longer exists.");
  return json({
    email: user.email,
    email_verified: Boolean(user.emailVerified),
    two_factor_enabled: Boolean(user.twoFactorEnabled),
  });
}

export const action = readOnlyAction;
