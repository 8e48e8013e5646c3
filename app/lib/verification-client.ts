import { paths } from "./paths.ts";
import { encodeToken, fromBase64url, importPublicKey, toBase64url, tokenMessage } from "./verification-token.ts";

/**
 * The browser's half of verification (docs/decisions/0030-blind-signed-verification-tokens.md): make random tokens,
 * blind them for the domain's public key after checking that key against the public list, send only the blinded
 * values with the mailed code, and finalize the blind signatures into tokens kept in this browser. The library
 * (@cloudflare/blindrsa-ts) is loaded only here, when someone types a code, so no other page carries it.
 */

export type Challenge = { challenge: string; domain: string; quarter: string; keyId: string; tokens: number };

export class VerificationClientError extends Error {}

type KeyList = { keys: { domain: string; quarter: string; key_id: string; public_key: JsonWebKey }[] };
type Problem = { detail?: string };

async function publicKeyOf(challenge: Challenge): Promise<JsonWebKey | undefined> {
  const response = await fetch(paths.verificationKeys(challenge.domain), { credentials: "omit" });
  if (!response.ok) return undefined;
  const list = (await response.json()) as KeyList;
  const listed = list.keys.filter((key) => key.domain === challenge.domain && key.quarter === challenge.quarter);
  // Exactly one key per domain and quarter, and it is the one the code was sent for.
  if (listed.length !== 1 || listed[0]!.key_id !== challenge.keyId) return undefined;
  return listed[0]!.public_key;
}

/**
 * Obtains `challenge.tokens` tokens for the code; answers the encoded tokens, or throws VerificationClientError with
 * the message to show (`keyMismatch` when the key differs from the public list).
 */
export async function obtainTokens(
  challenge: Challenge,
  code: string,
  texts: { keyMismatch: string; failed: string },
): Promise<string[]> {
  const jwk = await publicKeyOf(challenge);
  if (!jwk) throw new VerificationClientError(texts.keyMismatch);
  const publicKey = await importPublicKey(jwk);
  const drafts = await blindTokens(publicKey, challenge, challenge.tokens);
  const response = await fetch(paths.verificationTokensApi(), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      challenge: challenge.challenge,
      code,
      blinded: drafts.map((draft) => toBase64url(draft.blindedMsg)),
    }),
  });
  const body = (await response.json().catch(() => ({}))) as Problem & { blind_signatures?: string[]; key_id?: string };
  if (!response.ok || !body.blind_signatures) throw new VerificationClientError(body.detail ?? texts.failed);
  if (body.key_id !== challenge.keyId || body.blind_signatures.length !== drafts.length) {
    throw new VerificationClientError(texts.keyMismatch);
  }
  return finalizeTokens(publicKey, drafts, body.blind_signatures);
}

/** A token before it is signed: its parts, its message, the blinded message and the inverse that unblinds it. */
export type TokenDraft = {
  token: { domain: string; quarter: string; nonce: string };
  message: Uint8Array;
  blindedMsg: Uint8Array;
  inv: Uint8Array;
};

async function suite() {
  const { RSABSSA } = await import("@cloudflare/blindrsa-ts");
  return RSABSSA.SHA384.PSS.Deterministic();
}

/** RFC 9474 Blind: `count` fresh tokens of the domain and quarter, each with a 32-byte random nonce. */
export async function blindTokens(
  publicKey: CryptoKey,
  scope: { domain: string; quarter: string },
  count: number,
): Promise<TokenDraft[]> {
  const blindRsa = await suite();
  return Promise.all(
    Array.from({ length: count }, async () => {
      const token = {
        domain: scope.domain,
        quarter: scope.quarter,
        nonce: toBase64url(crypto.getRandomValues(new Uint8Array(32))),
      };
      const message = tokenMessage(token);
      const { blindedMsg, inv } = await blindRsa.blind(publicKey, message);
      return { token, message, blindedMsg, inv };
    }),
  );
}

/**
 * RFC 9474 Finalize: the blind signatures (base64url, in the drafts' order) unblinded into encoded tokens. Finalize
 * verifies each signature with `publicKey`: a signature by any other key fails here.
 */
export async function finalizeTokens(
  publicKey: CryptoKey,
  drafts: TokenDraft[],
  blindSignatures: string[],
): Promise<string[]> {
  const blindRsa = await suite();
  return Promise.all(
    drafts.map(async (draft, index) => {
      const signature = await blindRsa.finalize(
        publicKey,
        draft.message,
        fromBase64url(blindSignatures[index]!),
        draft.inv,
      );
      return encodeToken({ ...draft.token, signature: toBase64url(signature) });
    }),
  );
}
