import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openPendingVoteKey, sealPendingVoteKey } from "./vote-key.server.ts";

describe("a vote key sealed until the second factor", () => {
  const secret = randomBytes(32).toString("base64url");
  const voteKey = randomBytes(32).toString("base64url");
  const now = Date.UTC(2026, 10, 28, 12);

  it("opens for the account it was sealed for, with the server secret, within ten minutes", () => {
    const sealed = sealPendingVoteKey(secret, "user-a", voteKey, now);
    expect(sealed).not.toContain(voteKey);
    expect(openPendingVoteKey(secret, "user-a", sealed, now + 9 * 60_000)).toBe(voteKey);
  });

  it("opens for no other account, with no other secret, and not once expired", () => {
    const sealed = sealPendingVoteKey(secret, "user-a", voteKey, now);
    expect(openPendingVoteKey(secret, "user-b", sealed, now)).toBeNull();
    expect(openPendingVoteKey(randomBytes(32).toString("base64url"), "user-a", sealed, now)).toBeNull();
    expect(openPendingVoteKey(secret, "user-a", sealed, now + 10 * 60_000)).toBeNull();
  });

  it("refuses a value whose expiry, nonce or sealed bytes were changed, and anything malformed", () => {
    const sealed = sealPendingVoteKey(secret, "user-a", voteKey, now);
    const [expires, iv, bytes] = sealed.split(".") as [string, string, string];
    const flip = (text: string) => `${text.slice(0, -2)}${text.at(-2) === "A" ? "B" : "A"}${text.at(-1)}`;
    for (const changed of [
      `${Number(expires) + 60_000}.${iv}.${bytes}`,
      `${expires}.${flip(iv)}.${bytes}`,
      `${expires}.${iv}.${flip(bytes)}`,
      "",
      "not.a.value",
      `${expires}.${iv}`,
    ]) {
      expect(openPendingVoteKey(secret, "user-a", changed, now)).toBeNull();
    }
  });
});
