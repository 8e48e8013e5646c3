import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { accountMessages } from "#app/domain/accounts.server.ts";
import { passwordMessages } from "#app/domain/password-policy.server.ts";
import { paths } from "#app/lib/paths.ts";
import { alertText, newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { linkIn, waitForMail, waitForMails } from "../support/outbox.ts";
import { type RunningServer, startServer } from "../support/server.ts";

// Accounts over plain HTTP, as a browser without JavaScript or an attacker's script sends them. Behind
// TRUSTED_PROXIES=127.0.0.1 each simulated person has an address (X-Forwarded-For) and rate-limit buckets of its own.
// SERVER_TIMING: each answer says how much CPU time the server spent on it, which the timing tests compare.
const server = await startServer("sqlite", {
  env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", SERVER_TIMING: "on" },
});
const password = "a long and private passphrase";

after(async () => {
  await stopCleanly(server);
});

async function stopCleanly(running: RunningServer): Promise<void> {
  assert.equal(await running.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${running.output()}`);
  assert.doesNotMatch(running.output(), /"level":(50|60)/, "the server logged errors");
}

function visitor(): Visitor {
  return new Visitor(server.baseURL, newClientIp());
}

/** A visitor signed in to a new account. */
async function member(): Promise<{ visitor: Visitor; email: string }> {
  const email = newEmail();
  const person = visitor();
  await person.signUp(email, password);
  return { visitor: person, email };
}

async function isSignedIn(person: Visitor): Promise<boolean> {
  const response = await person.get(paths.account());
  await response.body?.cancel();
  return response.status === 200;
}

/** The page without what differs on every request (the CSP nonce) or names the address asked about. */
function normalized(html: string, email: string): string {
  return html.replaceAll(email, "EMAIL").replace(/nonce="[^"]*"/g, 'nonce=""');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** What one answer cost: the server's CPU time (its Server-Timing header) and the time the client waited. */
type Cost = { cpu: number; wall: number };

/** Sends a request and reads its cost; `check` looks at the answer, whose body is then discarded. */
async function costOf(send: () => Promise<Response>, check: (response: Response) => void): Promise<Cost> {
  const started = performance.now();
  const response = await send();
  await response.body?.cancel();
  const wall = performance.now() - started;
  check(response);
  const timing = response.headers.get("server-timing") ?? "";
  const cpu = /(?:^|,)\s*cpu;dur=([\d.]+)/.exec(timing);
  assert.ok(cpu, `no "cpu" in Server-Timing: "${timing}"`);
  return { cpu: Number(cpu[1]), wall };
}

/**
 * Measures `pairs` pairs of requests of two kinds, one right after the other, the order alternating (AB, BA, ...)
 * so that neither kind always goes first. The work of each answer is the CPU time the server spent on it: unlike
 * the time a client waits, it does not grow with what else a busy machine runs. Each pair gives the ratio of its
 * two costs, measured moments apart; the median of those ratios says how the two kinds compare, whatever a few
 * pairs met. The figures come back with the medians of the CPU and waiting times of each kind.
 */
async function comparePairs(
  pairs: number,
  a: (pair: number) => Promise<Cost>,
  b: (pair: number) => Promise<Cost>,
): Promise<{ ratio: number; figures: string }> {
  const costs: Array<{ a: Cost; b: Cost }> = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    if (pair % 2 === 0) {
      const first = await a(pair);
      costs.push({ a: first, b: await b(pair) });
    } else {
      const first = await b(pair);
      costs.push({ a: await a(pair), b: first });
    }
  }
  const ratio = median(costs.map((cost) => cost.a.cpu / cost.b.cpu));
  const of = (kind: "a" | "b", measure: keyof Cost) => median(costs.map((cost) => cost[kind][measure])).toFixed(1);
  const figures =
    `median CPU-time ratio ${ratio.toFixed(2)} over ${pairs} pairs; medians: CPU ${of("a", "cpu")} vs ` +
    `${of("b", "cpu")} ms, waited ${of("a", "wall")} vs ${of("b", "wall")} ms`;
  return { ratio, figures };
}

describe("signing in over HTTP", () => {
  it("answers an unknown e-mail exactly as a wrong password: same status, same page", async () => {
    const { email } = await member();
    const unknown = newEmail("nobody");
    const wrongPassword = await visitor().signIn(email, "not the password");
    const unknownEmail = await visitor().signIn(unknown, "not the password");
    assert.equal(wrongPassword.status, 401);
    assert.equal(unknownEmail.status, 401);
    const [wrongPage, unknownPage] = [await wrongPassword.text(), await unknownEmail.text()];
    assert.equal(alertText(wrongPage), accountMessages.invalidCredentials);
    assert.equal(normalized(unknownPage, unknown), normalized(wrongPage, email));
  });

  it("costs the server as much work for an unknown e-mail as for a wrong password (a password is verified either way)", async (t) => {
    // Four wrong guesses for each of five accounts stay within the limit of ten per address; each guess comes from an
    // address of its own, so both kinds meet rate-limit counters as new.
    const accounts: string[] = [];
    for (let index = 0; index < 5; index += 1) accounts.push((await member()).email);
    const guess = (address: string) =>
      costOf(
        () => visitor().signIn(address, "not the password"),
        (response) => assert.equal(response.status, 401),
      );
    const { ratio, figures } = await comparePairs(
      20,
      () => guess(newEmail("nobody")),
      (pair) => guess(accounts[pair % accounts.length]!),
    );
    t.diagnostic(`unknown e-mail vs wrong password: ${figures}`);
    // An argon2 verification is most of either answer's work: without one, an unknown e-mail costs a fraction of it.
    assert.ok(ratio > 0.67 && ratio < 1.5, `unknown e-mail vs wrong password: ${figures}`);
  });

  it("refuses a password made of the new account's own e-mail address, and opens no account", async () => {
    const email = newEmail("hank.miller");
    const response = await visitor().post(paths.signUp(), { email, password: email });
    assert.equal(response.status, 400);
    assert.ok((await response.text()).includes(passwordMessages.personal));
    assert.equal((await visitor().post(paths.signIn(), { email, password: email })).status, 401);
  });

  it("lets no cache keep the account page, which shows the e-mail address; public pages stay cacheable", async () => {
    const { visitor: person, email } = await member();
    const account = await person.get(paths.account());
    assert.equal(account.status, 200);
    assert.ok((await account.text()).includes(email));
    assert.equal(account.headers.get("cache-control"), "private, no-store");
    const guidelines = await visitor().get(paths.guidelines());
    await guidelines.body?.cancel();
    assert.equal(guidelines.status, 200);
    assert.doesNotMatch(guidelines.headers.get("cache-control") ?? "", /no-store/);
  });

  it("sends the session cookie HttpOnly and SameSite=Lax, not Secure over plain HTTP", async () => {
    const response = await visitor().post(paths.signUp(), { email: newEmail(), password });
    assert.equal(response.status, 302);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith("candor.session_token="));
    assert.ok(cookie, `no session cookie in ${response.headers.getSetCookie().join(" | ")}`);
    const attributes = cookie.split(";").map((part) => part.trim().toLowerCase());
    assert.ok(attributes.includes("httponly"), cookie);
    assert.ok(attributes.includes("samesite=lax"), cookie);
    assert.ok(attributes.includes("path=/"), cookie);
    assert.ok(!attributes.includes("secure"), cookie);
    // The token itself (before the signature) carries well over 128 bits.
    const token = decodeURIComponent(cookie.split(";")[0]!.split("=")[1]!).split(".")[0]!;
    assert.ok(token.length >= 32, `session token "${token}" is short`);
  });

  it("names the session cookie __Host- (Secure, Path=/, no Domain) when the public address is https", async () => {
    // The scheme written in capitals, as an operator may: it is https all the same (it was not, checked).
    const secure = await startServer("sqlite", {
      env: { DEMO_DATA: "never", PUBLIC_URL: "HTTPS://candor.example", TRUSTED_PROXIES: "127.0.0.1" },
    });
    try {
      // Served over plain HTTP to the test, as behind a TLS-terminating proxy: the cookie still says Secure.
      const browser = new Visitor(secure.baseURL, newClientIp());
      const response = await browser.post(paths.signUp(), { email: newEmail(), password });
      assert.equal(response.status, 302);
      const cookies = response.headers.getSetCookie();
      const cookie = cookies.find((value) => /^__Host-candor\.session_token=/.test(value));
      assert.ok(cookie, `no __Host- session cookie in ${cookies.join(" | ")}`);
      assert.ok(!cookies.some((value) => /^(?:__Secure-)?candor\./.test(value)), cookies.join(" | "));
      const attributes = cookie.split(";").map((part) => part.trim().toLowerCase());
      for (const attribute of ["secure", "httponly", "samesite=lax", "path=/"]) {
        assert.ok(attributes.includes(attribute), cookie);
      }
      assert.ok(!attributes.some((attribute) => attribute.startsWith("domain=")), cookie);
      // The renamed cookie is the session: the account page opens with it.
      const account = await browser.get(paths.account());
      assert.equal(account.status, 200);
      await account.body?.cancel();
    } finally {
      await stopCleanly(secure);
    }
  });

  it("follows only same-site paths after signing in, never another site", async () => {
    const { email } = await member();
    const cases: Array<[string, string]> = [
      ["/account", "/account"],
      ["//evil.example", "/search"],
      ["https://evil.example", "/search"],
      ["/\\evil.example", "/search"],
      ["", "/search"],
    ];
    for (const [redirectTo, expected] of cases) {
      const response = await visitor().post(paths.signIn(), { email, password, redirectTo });
      assert.equal(response.status, 302, `redirectTo=${redirectTo}`);
      assert.equal(response.headers.get("location"), expected, `redirectTo=${redirectTo}`);
    }
  });

  it("sends a signed-in visitor from /signin and /signup to the home page", async () => {
    const { visitor: person } = await member();
    for (const path of [paths.signIn(), paths.signUp()]) {
      const response = await person.get(path);
      assert.equal(response.status, 302, path);
      assert.equal(response.headers.get("location"), paths.home(), path);
    }
  });
});

describe("e-mail and password recovery over HTTP", () => {
  it("mails a confirmation link at sign-up that confirms the address", async () => {
    const { visitor: person, email } = await member();
    assert.match(await (await person.get(paths.account())).text(), /not confirmed yet/);
    const mail = await waitForMail(server.outboxDir, { to: email, subject: /Confirm your e-mail address/ });
    const link = linkIn(mail, paths.verifyEmail());
    assert.equal(link.origin, server.baseURL);
    // Opened where nobody is signed in (another device, a mail scanner): it confirms, and signs nobody in.
    const elsewhere = visitor();
    const confirmed = await elsewhere.get(`${link.pathname}${link.search}`);
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), new RegExp(accountMessages.emailVerified.replace(".", "\\.")));
    assert.deepEqual([...elsewhere.cookies.keys()], [], "no session from the link");
    assert.equal((await elsewhere.get(paths.account())).status, 302, "the account page asks to sign in");
    assert.match(await (await person.get(paths.account())).text(), /\(confirmed\)/);
  });

  it("refuses a made-up confirmation link", async () => {
    const response = await visitor().get(`${paths.verifyEmail()}?token=made-up`);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /This confirmation link is invalid or has expired/);
  });

  it("answers a reset request the same whether or not an account uses the address", async () => {
    const { email } = await member();
    const unknown = newEmail("nobody");
    const known = await visitor().post(paths.forgotPassword(), { email });
    const notKnown = await visitor().post(paths.forgotPassword(), { email: unknown });
    assert.equal(known.status, 200);
    assert.equal(notKnown.status, 200);
    const [knownPage, unknownPage] = [await known.text(), await notKnown.text()];
    assert.ok(knownPage.includes(accountMessages.resetSent), "the reset page does not say the link is sent");
    assert.equal(normalized(unknownPage, unknown), normalized(knownPage, email));
    await waitForMail(server.outboxDir, { to: email, subject: /Reset your Candor password/ });
  });

  it("costs the server as much work to answer a reset request for an unknown address as for a known one", async (t) => {
    // Four requests for each of ten accounts stay within the limit of five per address an hour.
    const accounts: string[] = [];
    for (let index = 0; index < 10; index += 1) accounts.push((await member()).email);
    // Unknown addresses are asked about as often as known ones, so both meet rate-limit counters as new or as used.
    const strangers = accounts.map(() => newEmail("nobody"));
    const ask = (address: string) =>
      costOf(
        () => visitor().post(paths.forgotPassword(), { email: address }),
        (response) => assert.equal(response.status, 200),
      );
    // The lookup, the token and the mail come after the answer; a known address's mail is awaited before going on,
    // so that work weighs on no later answer. Each measured request comes right after an unmeasured one for an
    // unknown address, so what that one does afterwards weighs on both kinds alike.
    const afterAnother = async (address: string) => {
      await ask(newEmail("nobody"));
      return ask(address);
    };
    const asked = new Map<string, number>();
    const { ratio, figures } = await comparePairs(
      40,
      (pair) => afterAnother(strangers[pair % strangers.length]!),
      async (pair) => {
        const email = accounts[pair % accounts.length]!;
        const cost = await afterAnother(email);
        asked.set(email, (asked.get(email) ?? 0) + 1);
        await waitForMails(server.outboxDir, {
          to: email,
          subject: /Reset your Candor password/,
          count: asked.get(email)!,
        });
        return cost;
      },
    );
    t.diagnostic(`unknown vs known address: ${figures}`);
    assert.ok(ratio > 0.8 && ratio < 1.25, `unknown vs known address: ${figures}`);
  });

  it("resets the password once per link, and the reset ends the account's sessions", async () => {
    const { visitor: signedIn, email } = await member();
    assert.ok(await isSignedIn(signedIn));
    const asked = await visitor().post(paths.forgotPassword(), { email });
    assert.equal(asked.status, 200);
    const link = linkIn(
      await waitForMail(server.outboxDir, { to: email, subject: /Reset your Candor password/ }),
      paths.resetPassword(),
    );
    const token = link.searchParams.get("token") ?? "";
    const stranger = visitor();
    assert.equal((await stranger.get(`${link.pathname}${link.search}`)).status, 200);
    const newPassword = "another long passphrase";
    const reset = await stranger.post(paths.resetPassword(), { token, password: newPassword });
    assert.equal(reset.status, 302);
    assert.equal(reset.headers.get("location"), "/signin?reset=done");

    assert.equal(await isSignedIn(signedIn), false, "the session opened before the reset still works");
    const again = await stranger.post(paths.resetPassword(), { token, password: "yet another passphrase" });
    assert.equal(again.status, 400);
    assert.equal(alertText(await again.text()), accountMessages.resetInvalid);
    assert.equal((await visitor().signIn(email, newPassword)).status, 302);
  });

  it("refuses a common or short new password when resetting", async () => {
    const { email } = await member();
    await visitor().post(paths.forgotPassword(), { email });
    const link = linkIn(
      await waitForMail(server.outboxDir, { to: email, subject: /Reset your Candor password/ }),
      paths.resetPassword(),
    );
    const token = link.searchParams.get("token") ?? "";
    for (const [weak, message] of [
      ["password", /too common/],
      ["short", /at least 8 characters/],
    ] as const) {
      const response = await visitor().post(paths.resetPassword(), { token, password: weak });
      assert.equal(response.status, 400, weak);
      assert.match(await response.text(), message);
    }
  });
});

describe("cross-site request forgery", () => {
  // Every form action of the accounts area, with what a same-origin post of this body answers.
  const formActions: Array<{ path: string; fields: Record<string, string>; status: number; signedIn: boolean }> = [
    {
      path: paths.signIn(),
      fields: { email: "someone@example.com", password: "not the password" },
      status: 401,
      signedIn: false,
    },
    { path: paths.signUp(), fields: { email: "not an address", password: "x" }, status: 400, signedIn: false },
    { path: paths.signOut(), fields: {}, status: 302, signedIn: true },
    { path: paths.forgotPassword(), fields: { email: "someone@example.com" }, status: 200, signedIn: false },
    {
      path: paths.resetPassword(),
      fields: { token: "made-up", password: "a long new passphrase" },
      status: 400,
      signedIn: false,
    },
    { path: paths.twoFactor(), fields: { code: "123456" }, status: 401, signedIn: false },
    { path: paths.account(), fields: { intent: "change-password" }, status: 400, signedIn: true },
  ];
  const foreign: Array<[string, Record<string, string>]> = [
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "Sec-Fetch-Site": "same-site" }],
    ["a foreign Origin", { Origin: "https://evil.example" }],
    ["a foreign Origin with a lookalike host", { Origin: "http://127.0.0.1.evil.example" }],
  ];

  for (const { path, fields, status, signedIn } of formActions) {
    it(`refuses cross-site posts to ${path} with 403 and accepts same-origin ones`, async () => {
      const person = signedIn ? (await member()).visitor : visitor();
      for (const [what, headers] of foreign) {
        const refused = await person.post(path, fields, headers);
        assert.equal(refused.status, 403, `${path} with ${what}`);
        assert.equal(await refused.text(), "Cross-site request refused.");
      }
      const accepted = await person.post(path, fields, sameOrigin(server.baseURL));
      await accepted.body?.cancel();
      assert.equal(accepted.status, status, `${path} from the same origin`);
      const withOriginOnly = await visitor().post(path, fields, { Origin: server.baseURL });
      await withOriginOnly.body?.cancel();
      assert.notEqual(withOriginOnly.status, 403, `${path} with only a matching Origin`);
    });
  }

  it("refuses a post that carries the session cookie but neither Origin nor Fetch Metadata", async () => {
    const { visitor: person } = await member();
    const response = await person.post(paths.signOut(), {}, {});
    assert.equal(response.status, 403);
    assert.ok(await isSignedIn(person), "the refused sign-out ended the session anyway");
  });

  it("does nothing when a cross-site page posts the account deletion form with the right password", async () => {
    const { visitor: person, email } = await member();
    const response = await person.post(
      paths.account(),
      { intent: "delete-account", password, confirm: "yes" },
      { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
    );
    assert.equal(response.status, 403);
    assert.ok(await isSignedIn(person));
    assert.equal(
      (await visitor().signIn(email, password)).status,
      302,
      "the refused deletion deleted the account anyway",
    );
  });

  it("refuses cross-site writes to the JSON API", async () => {
    for (const path of ["/api/v1/auth/token", "/api/v1/auth/revoke"]) {
      const response = await fetch(new URL(path, server.baseURL), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Sec-Fetch-Site": "cross-site",
          "X-Forwarded-For": newClientIp(),
        },
        body: JSON.stringify({ grant_type: "refresh_token", refresh_token: "x" }),
      });
      assert.equal(response.status, 403, path);
    }
  });
});

describe("JSON API tokens", () => {
  const tokenUrl = new URL("/api/v1/auth/token", server.baseURL);
  const userUrl = new URL("/api/v1/auth/user", server.baseURL);

  type Pair = {
    access_token: string;
    token_type: string;
    expires_in: number;
    expires_at: number;
    refresh_token: string;
  };

  async function token(body: Record<string, string>, ip = newClientIp()): Promise<Response> {
    return fetch(tokenUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
      body: JSON.stringify(body),
    });
  }

  async function userOf(accessToken: string): Promise<Response> {
    return fetch(userUrl, { headers: { Authorization: `Bearer ${accessToken}` } });
  }

  async function signInPair(email: string): Promise<Pair> {
    const response = await token({ grant_type: "password", email, password });
    assert.equal(response.status, 200, await response.clone().text());
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(response.headers.get("cache-control"), "no-store");
    return (await response.json()) as Pair;
  }

  async function assertProblem(response: Response, status: number, code?: string): Promise<Record<string, unknown>> {
    assert.equal(response.status, status);
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.status, status);
    assert.equal(typeof body.title, "string");
    assert.equal(typeof body.detail, "string");
    if (code) assert.equal(body.code, code);
    return body;
  }

  it("signs in with grant_type=password: an access token with its expiry and a refresh token", async () => {
    const { email } = await member();
    const before = Math.floor(Date.now() / 1000);
    const pair = await signInPair(email);
    assert.equal(pair.token_type, "bearer");
    assert.equal(typeof pair.access_token, "string");
    assert.equal(typeof pair.refresh_token, "string");
    assert.notEqual(pair.access_token, pair.refresh_token);
    assert.ok(pair.expires_in > 0);
    assert.ok(Math.abs(pair.expires_at - (before + pair.expires_in)) <= 5, JSON.stringify(pair));

    const user = await userOf(pair.access_token);
    assert.equal(user.status, 200);
    assert.deepEqual(await user.json(), { email, email_verified: false, two_factor_enabled: false });
  });

  it("accepts the grant as a form body too", async () => {
    const { email } = await member();
    const response = await fetch(tokenUrl, {
      method: "POST",
      headers: { "X-Forwarded-For": newClientIp() },
      body: new URLSearchParams({ grant_type: "password", email, password }),
    });
    assert.equal(response.status, 200);
    assert.equal(typeof ((await response.json()) as Pair).access_token, "string");
  });

  it("answers a wrong password and an unknown e-mail alike, with 401 invalid_credentials", async () => {
    const { email } = await member();
    const wrong = await assertProblem(await token({ grant_type: "password", email, password: "nope nope" }), 401);
    const unknown = await assertProblem(
      await token({ grant_type: "password", email: newEmail("nobody"), password: "nope nope" }),
      401,
    );
    assert.equal(wrong.code, "invalid_credentials");
    assert.deepEqual(unknown, wrong);
    assert.equal(wrong.detail, accountMessages.invalidCredentials);
  });

  it("refuses a missing or made-up bearer token with 401", async () => {
    const missing = await fetch(userUrl);
    await assertProblem(missing, 401);
    assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
    await assertProblem(await userOf("made-up-token-made-up-token-made-up"), 401);
  });

  it("rotates the refresh token on refresh; the new pair works", async () => {
    const { email } = await member();
    const first = await signInPair(email);
    const response = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    assert.equal(response.status, 200);
    const second = (await response.json()) as Pair;
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal((await userOf(second.access_token)).status, 200);
  });

  it("revokes the whole token family when a spent refresh token is presented again", async () => {
    const { email } = await member();
    const first = await signInPair(email);
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    assert.equal(refreshed.status, 200);
    const second = (await refreshed.json()) as Pair;

    const replay = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    await assertProblem(replay, 401, "refresh_token_reused");

    await assertProblem(await userOf(second.access_token), 401);
    await assertProblem(await userOf(first.access_token), 401);
    const afterRevocation = await token({ grant_type: "refresh_token", refresh_token: second.refresh_token });
    const body = await assertProblem(afterRevocation, 401);
    assert.notEqual(body.code, undefined);
    // Signing in again opens a new family that works.
    assert.equal((await userOf((await signInPair(email)).access_token)).status, 200);
  });

  it("ends the family on POST /api/v1/auth/revoke", async () => {
    const { email } = await member();
    const pair = await signInPair(email);
    const revoked = await fetch(new URL("/api/v1/auth/revoke", server.baseURL), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refresh_token: pair.refresh_token }),
    });
    assert.equal(revoked.status, 204);
    await assertProblem(await userOf(pair.access_token), 401);
    await assertProblem(await token({ grant_type: "refresh_token", refresh_token: pair.refresh_token }), 401);
  });

  it("answers bad requests as problem details: 415 for another type, 400 for bad JSON or an unknown grant", async () => {
    const post = (body: string, type: string) =>
      fetch(tokenUrl, { method: "POST", headers: { "Content-Type": type }, body });
    await assertProblem(await post("grant_type=password", "text/plain"), 415);
    await assertProblem(await post("{not json", "application/json"), 400);
    const unknownGrant = await assertProblem(
      await post('{"grant_type":"client_credentials"}', "application/json"),
      400,
    );
    assert.ok(Array.isArray(unknownGrant.errors), JSON.stringify(unknownGrant));
    await assertProblem(await post('{"grant_type":"password","email":"a@example.com"}', "application/json"), 400);
    const get = await fetch(tokenUrl);
    await assertProblem(get, 405);
    assert.equal(get.headers.get("allow"), "POST");
  });
});
