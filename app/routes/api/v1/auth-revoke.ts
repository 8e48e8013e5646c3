import { z } from "zod";
import type { Route } from "./+types/auth-revoke.ts";
import { database } from "#app/db/database.server.ts";
import { revokeTokenFamily } from "#app/domain/api-tokens.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiFailure } from "#app/http/api.server.ts";
import { problem } from "#app/http/problem.server.ts";

export function loader() {
  return problem(405, "Use POST.", {}, { headers: { Allow: "POST" } });
}

/** POST /api/v1/auth/revoke: signs an API client out, ending the refresh token's whole family. */
export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return problem(405, "Use POST.", {}, { headers: { Allow: "POST" } });
  const body = await readBody(request, z.object({ refresh_token: z.string().min(1).max(200) }));
  if (!body.ok) return body.response;
  try {
    await revokeTokenFamily(database().db, body.data.refresh_token);
  } catch (error) {
    return apiFailure(error);
  }
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}
