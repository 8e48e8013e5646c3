import { z } from "zod";
import { database } from "#app/db/database.server.ts";
import { publicSigningKeys } from "#app/domain/verification.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";

const domainQuery = z.string().max(253).optional();

/**
 * GET /.well-known/candor-keys.json[?domain=…]: every public verification key, one per (domain, quarter). Browsers
 * check the key they blind for against this list, so the site cannot hand one person a key of their own unseen.
 */
export const loader = apiRead(async ({ request }) => {
  const domain = domainQuery.safeParse(new URL(request.url).searchParams.get("domain") ?? undefined);
  const keys = await publicSigningKeys(database().db);
  const wanted = domain.success && domain.data ? keys.filter((key) => key.domain === domain.data) : keys;
  return {
    algorithm: "RSABSSA-SHA384-PSS-Deterministic",
    keys: wanted.map((key) => ({
      domain: key.domain,
      quarter: key.quarter,
      key_id: key.keyId,
      public_key: key.publicKey,
    })),
  };
}, 60);

export const action = readOnlyAction;
