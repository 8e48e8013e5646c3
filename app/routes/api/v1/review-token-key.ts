import { database } from "#app/db/database.server.ts";
import { reviewTokenKey } from "#app/domain/review-tokens.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";

/** GET /api/v1/review-tokens/key: this quarter's one-review key, which the browser blinds its token for. */
export const loader = apiRead(async () => {
  const key = await reviewTokenKey(database().db, serverSecret());
  return { period: key.period, key_id: key.keyId, public_key: key.publicKey };
});

export const action = readOnlyAction;
