import { verificationAddressSchema } from "#app/domain/verification.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiWrite } from "#app/http/api.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { startVerification } from "#app/http/verification.server.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";

/** POST /api/v1/verification/codes: mails a code to a work address; answers the challenge and the domain's key. */
export const action = apiWrite(
  async ({ request, context, author }) => {
    const body = await readBody(request, verificationAddressSchema);
    if (!body.ok) throw body.response;
    const started = await startVerification(context.get(clientContext).ipKey, author.userId, body.data);
    return {
      status: 201,
      body: {
        challenge: started.challenge,
        domain: started.domain,
        quarter: started.quarter,
        key_id: started.key.keyId,
        public_key: started.key.publicKey,
        tokens: started.tokens,
        note: verificationMessages.codeSent(started.domain),
      },
    };
  },
  { allow: "POST" },
);

export const loader = action;
