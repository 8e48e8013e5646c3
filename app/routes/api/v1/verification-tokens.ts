import { verificationCodeSchema } from "#app/domain/verification.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiWrite } from "#app/http/api.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { finishVerification } from "#app/http/verification.server.ts";

/** POST /api/v1/verification/tokens: the mailed code and blinded tokens; answers their blind signatures. */
export const action = apiWrite(
  async ({ request, context }) => {
    const body = await readBody(request, verificationCodeSchema);
    if (!body.ok) throw body.response;
    const issued = await finishVerification(context.get(clientContext).ipKey, body.data);
    return {
      status: 200,
      body: {
        domain: issued.domain,
        quarter: issued.quarter,
        key_id: issued.keyId,
        blind_signatures: issued.signatures,
      },
    };
  },
  { allow: "POST" },
);

export const loader = action;
