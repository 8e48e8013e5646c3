import assert from "node:assert/strict";
import { blindTokens, finalizeTokens } from "#app/lib/verification-client.ts";
import { importPublicKey, toBase64url } from "#app/lib/verification-token.ts";
import { waitForMail } from "../../support/outbox.ts";
import { sameOrigin, type Visitor } from "./http.ts";

/** What the wire carried during one verification: what a live observer of issuance could keep. */
export type IssuanceTranscript = { domain: string; quarter: string; blinded: string[]; blindSignatures: string[] };

/** The code in the newest verification mail to `address`. */
export async function mailedCode(outboxDir: string, address: string): Promise<string> {
  const mail = await waitForMail(outboxDir, { to: address, subject: /Your Candor code/ });
  const code = /Your code is (\d{6})/.exec(mail.text)?.[1];
  assert.ok(code, `no code in the mail to ${address}`);
  return code;
}

/** POSTs JSON with the visitor's session, as the site's own script does. */
export async function postJson(visitor: Visitor, path: string, body: unknown): Promise<Response> {
  return visitor.request(path, {
    method: "POST",
    headers: { ...sameOrigin(visitor.baseURL), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * A signed-in visitor verifies `address` over the JSON API, doing what the browser does (blind with the library,
 * finalize): answers the finished tokens and the transcript of the issuance.
 */
export async function verifyOverHttp(
  visitor: Visitor,
  outboxDir: string,
  address: string,
  count = 1,
): Promise<{ tokens: string[]; transcript: IssuanceTranscript }> {
  const started = await postJson(visitor, "/api/v1/verification/codes", { email: address });
  const challenge = (await started.json()) as {
    challenge: string;
    domain: string;
    quarter: string;
    public_key: JsonWebKey;
  };
  assert.equal(started.status, 201, JSON.stringify(challenge));
  const publicKey = await importPublicKey(challenge.public_key);
  const drafts = await blindTokens(publicKey, challenge, count);
  const blinded = drafts.map((draft) => toBase64url(draft.blindedMsg));
  const issued = await postJson(visitor, "/api/v1/verification/tokens", {
    challenge: challenge.challenge,
    code: await mailedCode(outboxDir, address),
    blinded,
  });
  const body = (await issued.json()) as { blind_signatures: string[] };
  assert.equal(issued.status, 200, JSON.stringify(body));
  const tokens = await finalizeTokens(publicKey, drafts, body.blind_signatures);
  return {
    tokens,
    transcript: {
      domain: challenge.domain,
      quarter: challenge.quarter,
      blinded,
      blindSignatures: body.blind_signatures,
    },
  };
}

/** Fisher–Yates with Math.random: a test's own order, unrelated to the server's. */
export function shuffled<T>(items: readonly T[]): T[] {
  const result = [...items];
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

export { blindReviewToken, type ReviewTokenKeyAnswer } from "#app/lib/review-token-client.ts";
