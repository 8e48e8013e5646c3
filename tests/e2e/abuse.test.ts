import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { accountMessages } from "#app/domain/accounts.server.ts";
import { passwordMessages } from "#app/domain/password-policy.server.ts";
import { paths } from "#app/lib/paths.ts";
import { rateLimits } from "#app/lib/rate-limit.server.ts";
import { alertText, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { waitForMails } from "../support/outbox.ts";
import { type RunningServer, startServer } from "../support/server.ts";

// Rate limits count per server process and per client address. `proxied` believes X-Forwarded-For from 127.0.0.1,
// so each test spends the buckets of addresses of its own; `direct` trusts no proxy, as out of the box.
const [proxied, direct] = await Promise.all([
  startServer("sqlite", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } }),
  startServer("sqlite", { env: { DEMO_DATA: "never" } }),
]);
const password = "a long and private passphrase";

after(async () => {
  for (const server of [proxied, direct]) {
    assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
  }
});

/** Asserts a refused attempt: 429 with a Retry-After of at most the limit's window; returns the page. */
async function assertLimited(response: Response, windowSeconds: number): Promise<string> {
  const body = await response.text();
  assert.equal(response.status, 429, alertText(body) ?? body.slice(0, 200));
  const retryAfter = Number(response.headers.get("retry-after"));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds,
    `Retry-After: ${response.headers.get("retry-after")}`,
  );
  return body;
}

async function status(response: Promise<Response>): Promise<number> {
  const answered = await response;
  await answered.body?.cancel();
  return answered.status;
}

async function accountOn(server: RunningServer): Promise<string> {
  const email = newEmail();
  await new Visitor(server.baseURL, newClientIp()).signUp(email, password);
  return email;
}

describe("rate limits", () => {
  const signInWindow = rateLimits.signIn.duration;

  it("answers the 11th sign-in attempt within 15 minutes from one address with 429 and Retry-After", async () => {
    assert.equal(rateLimits.signIn.points, 10);
    const email = await accountOn(proxied);
    const attacker = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      assert.equal(await status(attacker.signIn(email, `guess number ${attempt}`)), 401, `attempt ${attempt}`);
    }
    // Even the right password is refused now: the limit does not depend on guessing wrong.
    const page = await assertLimited(await attacker.signIn(email, password), signInWindow);
    assert.match(alertText(page) ?? "", /^Too many attempts\. Try again in \d+ minutes?\.$/);
    // The JSON API's password grant counts in the same bucket.
    const grant = await fetch(new URL("/api/v1/auth/token", proxied.baseURL), {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": attacker.ip! },
      body: JSON.stringify({ grant_type: "password", email, password }),
    });
    assert.equal(grant.headers.get("content-type"), "application/problem+json");
    await assertLimited(grant, signInWindow);
  });

  it("keeps separate buckets for two clients behind a trusted proxy (X-Forwarded-For)", async () => {
    const email = await accountOn(proxied);
    const first = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= 10; attempt += 1) await status(first.signIn(email, `guess ${attempt}`));
    await assertLimited(await first.signIn(email, "guess 11"), signInWindow);
    const second = new Visitor(proxied.baseURL, newClientIp());
    assert.equal(await status(second.signIn(email, "guess from elsewhere")), 401);
    assert.equal(await status(second.signIn(email, password)), 302);
  });

  it("does not let a forged X-Forwarded-For escape the limit when no proxy is trusted", async () => {
    const email = await accountOn(direct);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const forger = new Visitor(direct.baseURL, newClientIp());
      assert.equal(await status(forger.signIn(email, `guess ${attempt}`)), 401, `attempt ${attempt}`);
    }
    await assertLimited(await new Visitor(direct.baseURL, newClientIp()).signIn(email, "guess 11"), signInWindow);
    await assertLimited(await new Visitor(direct.baseURL).signIn(email, password), signInWindow);
  });

  it("limits the attempts on one account from many addresses", async () => {
    const { points, duration } = rateLimits.signInAccount;
    const email = await accountOn(proxied);
    for (let attempt = 1; attempt <= points; attempt += 1) {
      const botnet = new Visitor(proxied.baseURL, newClientIp());
      assert.equal(await status(botnet.signIn(email, `guess ${attempt}`)), 401, `attempt ${attempt}`);
    }
    await assertLimited(await new Visitor(proxied.baseURL, newClientIp()).signIn(email, password), duration);
  });

  it("counts sign-up attempts, refused ones too, and answers the 6th within 10 minutes with 429", async () => {
    const { points, duration } = rateLimits.signUp;
    assert.equal(points, 5);
    assert.equal(duration, 10 * 60);
    const person = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= points; attempt += 1) {
      const response = await person.post(paths.signUp(), { email: newEmail(), password: "password" });
      assert.equal(response.status, 400, `attempt ${attempt}`);
      assert.equal(alertText(await response.text()), passwordMessages.common);
    }
    await assertLimited(await person.post(paths.signUp(), { email: newEmail(), password }), duration);
    assert.equal(
      await status(new Visitor(proxied.baseURL, newClientIp()).post(paths.signUp(), { email: newEmail(), password })),
      302,
    );
  });

  it("limits password reset mails per address and per account", async () => {
    const { points, duration } = rateLimits.passwordReset;
    const person = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= points; attempt += 1) {
      assert.equal(await status(person.post(paths.forgotPassword(), { email: newEmail("nobody") })), 200);
    }
    await assertLimited(await person.post(paths.forgotPassword(), { email: newEmail("nobody") }), duration);

    // One account's inbox cannot be flooded from many addresses either.
    const email = await accountOn(proxied);
    for (let attempt = 1; attempt <= points; attempt += 1) {
      const asker = new Visitor(proxied.baseURL, newClientIp());
      assert.equal(await status(asker.post(paths.forgotPassword(), { email })), 200, `request ${attempt}`);
    }
    await assertLimited(
      await new Visitor(proxied.baseURL, newClientIp()).post(paths.forgotPassword(), { email }),
      duration,
    );
    const mails = await waitForMails(proxied.outboxDir, {
      to: email,
      subject: /Reset your Candor password/,
      count: points,
    });
    assert.equal(mails.length, points);
  });

  it("limits the confirmation mails an account can ask for again", async () => {
    const { points, duration } = rateLimits.verificationMail;
    const email = newEmail();
    const person = new Visitor(proxied.baseURL, newClientIp());
    await person.signUp(email, password);
    for (let attempt = 1; attempt <= points; attempt += 1) {
      const response = await person.post(paths.account(), { intent: "resend-verification" });
      assert.equal(response.status, 200, `request ${attempt}`);
      assert.match(await response.text(), new RegExp(accountMessages.verificationSent));
    }
    const page = await assertLimited(await person.post(paths.account(), { intent: "resend-verification" }), duration);
    assert.match(alertText(page) ?? "", /Too many e-mails asked for/);
    // The one sent at sign-up and one per accepted request.
    const subject = /Confirm your e-mail address/;
    const mails = await waitForMails(proxied.outboxDir, { to: email, subject, count: points + 1 });
    assert.equal(mails.length, points + 1);
  });

  it("counts two-factor codes against the sign-in limit", async () => {
    const person = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= rateLimits.signIn.points; attempt += 1) {
      assert.equal(await status(person.post(paths.twoFactor(), { code: "123456" })), 401, `attempt ${attempt}`);
    }
    await assertLimited(await person.post(paths.twoFactor(), { code: "654321" }), signInWindow);
  });

  it("does not let successes on one's own account reset the count of guesses (a success after every 8)", async () => {
    const victim = await accountOn(proxied);
    const own = await accountOn(proxied);
    const attacker = new Visitor(proxied.baseURL, newClientIp());
    let failures = 0;
    let refusedAt: number | undefined;
    for (let round = 0; round < 5 && refusedAt === undefined; round += 1) {
      for (let guess = 0; guess < 8; guess += 1) {
        const answer = await status(attacker.signIn(victim, `guess ${round}.${guess}`));
        if (answer === 429) {
          refusedAt = failures + 1;
          break;
        }
        assert.equal(answer, 401);
        failures += 1;
      }
      // Signing in to one's own account (and out again, to be a stranger for the next round).
      const login = await status(attacker.signIn(own, password));
      if (login === 429) refusedAt ??= failures + 1;
      else attacker.cookies.clear();
    }
    assert.equal(failures, rateLimits.signIn.points, "wrong guesses answered before the limit");
    assert.equal(refusedAt, rateLimits.signIn.points + 1);
  });

  it("never lets guesses from elsewhere lock the owner out of their usual network", async () => {
    const { points } = rateLimits.signInAccount;
    const email = await accountOn(proxied);
    const owner = new Visitor(proxied.baseURL, newClientIp());
    assert.equal(await status(owner.signIn(email, password)), 302);
    owner.cookies.clear();
    // A botnet, one guess per address, twice the account's limit; then an attacker at one address until refused.
    for (let attempt = 1; attempt <= 2 * points; attempt += 1) {
      await status(new Visitor(proxied.baseURL, newClientIp()).signIn(email, `guess ${attempt}`));
    }
    const attacker = new Visitor(proxied.baseURL, newClientIp());
    for (let attempt = 1; attempt <= rateLimits.signIn.points + 1; attempt += 1) {
      await status(attacker.signIn(email, `guess ${attempt}`));
    }
    await assertLimited(await attacker.signIn(email, password), rateLimits.signIn.duration);
    await assertLimited(
      await new Visitor(proxied.baseURL, newClientIp()).signIn(email, password),
      rateLimits.signInAccount.duration,
    );
    // The owner, from the network they signed in from before, after a typo of their own.
    assert.equal(await status(owner.signIn(email, "a typo of the owner")), 401);
    assert.equal(await status(owner.signIn(email, password)), 302);
  });

  // Proven live: without the sign-up's rememberNetwork (app/routes/signup.tsx) the owner's sign-in is answered 429.
  it("counts a sign-up as a sign-in from its address: an account that never signed in is not locked out either", async () => {
    const { points } = rateLimits.signInAccount;
    const email = newEmail();
    const owner = new Visitor(proxied.baseURL, newClientIp());
    await owner.signUp(email, password);
    owner.cookies.clear();
    for (let attempt = 1; attempt <= points + 2; attempt += 1) {
      await status(new Visitor(proxied.baseURL, newClientIp()).signIn(email, `guess ${attempt}`));
    }
    await assertLimited(
      await new Visitor(proxied.baseURL, newClientIp()).signIn(email, password),
      rateLimits.signInAccount.duration,
    );
    assert.equal(await status(owner.signIn(email, password)), 302);
  });

  for (const { intent, fields } of [
    {
      intent: "change-password",
      fields: (guess: string) => ({ currentPassword: guess, newPassword: `${password} 2` }),
    },
    { intent: "enable-2fa", fields: (guess: string) => ({ password: guess }) },
    { intent: "delete-account", fields: (guess: string) => ({ password: guess, confirm: "yes" }) },
  ]) {
    it(`limits password guesses through the account page (${intent}), with a stolen session`, async () => {
      const email = newEmail();
      const thief = new Visitor(proxied.baseURL, newClientIp());
      await thief.signUp(email, password);
      const answers: number[] = [];
      for (let attempt = 1; attempt <= 30; attempt += 1) {
        answers.push(await status(thief.post(paths.account(), { intent, ...fields(`guess ${attempt}`) })));
      }
      const firstRefused = answers.indexOf(429) + 1;
      assert.equal(firstRefused, rateLimits.signIn.points + 1, `answers: ${answers.join(" ")}`);
      assert.ok(answers.slice(firstRefused - 1).every((answer) => answer === 429));
      // The right password is refused too, once the limit is spent.
      const page = await assertLimited(
        await thief.post(paths.account(), { intent, ...fields(password) }),
        rateLimits.signIn.duration,
      );
      assert.match(page, /Too many attempts\. Try again in \d+ minutes?\./);
      // The sign-in form counts in the same buckets.
      await assertLimited(
        await new Visitor(proxied.baseURL, thief.ip).signIn(email, password),
        rateLimits.signIn.duration,
      );
    });
  }
});

describe("RATE_LIMITS=off, for test suites", () => {
  it("lets one address sign up and guess past every limit, where the default server refuses", async () => {
    const unlimited = await startServer("sqlite", { env: { DEMO_DATA: "never", RATE_LIMITS: "off" } });
    try {
      // No proxy trusted: every request comes from 127.0.0.1, as a test suite's browser does.
      const signUps = rateLimits.signUp.points + 2;
      for (let index = 0; index < signUps; index += 1) {
        await new Visitor(unlimited.baseURL).signUp(newEmail("many"), password);
      }
      const email = newEmail("guessed");
      await new Visitor(unlimited.baseURL).signUp(email, password);
      const guesser = new Visitor(unlimited.baseURL);
      for (let attempt = 1; attempt <= rateLimits.signIn.points + 2; attempt += 1) {
        assert.equal(await status(guesser.signIn(email, `guess number ${attempt}`)), 401, `attempt ${attempt}`);
      }
      assert.equal(await status(guesser.signIn(email, password)), 302);
    } finally {
      assert.equal(await unlimited.stop(), 0, unlimited.output());
    }
    // The same sign-ups from one address on a server with its limits, as out of the box.
    const statuses: number[] = [];
    for (let index = 0; index < rateLimits.signUp.points + 1; index += 1) {
      const visitor = new Visitor(direct.baseURL);
      statuses.push(await status(visitor.post(paths.signUp(), { email: newEmail("limited"), password })));
    }
    assert.equal(statuses.at(-1), 429, statuses.join(", "));
  });
});

describe("redirect after sign-in", () => {
  const offSite = [
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/\u3000/evil.example",
    "/\\evil.example",
  ];

  for (const path of [paths.signIn(), paths.signUp()]) {
    it(`answers ${path} with redirectTo holding a tab, a newline or U+3000 with a same-site Location and the cookie`, async () => {
      const email = path === paths.signIn() ? await accountOn(proxied) : undefined;
      for (const redirectTo of offSite) {
        const person = new Visitor(proxied.baseURL, newClientIp());
        const form = await person.get(`${path}?redirectTo=${encodeURIComponent(redirectTo)}`);
        assert.equal(form.status, 200, JSON.stringify(redirectTo));
        assert.match(await form.text(), /name="redirectTo" value=""/, "the form carries the target on");
        const answer = await person.post(path, { email: email ?? newEmail(), password, redirectTo });
        await answer.body?.cancel();
        assert.equal(answer.status, 302, JSON.stringify(redirectTo));
        assert.equal(answer.headers.get("location"), paths.search(), JSON.stringify(redirectTo));
        assert.ok(
          answer.headers.getSetCookie().some((cookie) => /candor\.session_token=[^;]+/.test(cookie)),
          `${JSON.stringify(redirectTo)}: no session cookie`,
        );
      }
    });
  }

  it("keeps a same-site target, query included", async () => {
    const email = await accountOn(proxied);
    const person = new Visitor(proxied.baseURL, newClientIp());
    const target = paths.reviewCompany(7);
    const answer = await person.post(paths.signIn(), { email, password, redirectTo: target });
    await answer.body?.cancel();
    assert.equal(answer.headers.get("location"), target);
  });
});
