import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import type { BrowserContextOptions, Locator, Page } from "playwright-core";
import { accountMessages } from "#app/domain/accounts.server.ts";
import { passwordMessages } from "#app/domain/password-policy.server.ts";
import { messages, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { linkIn, waitForMail } from "../support/outbox.ts";
import { startServer } from "../support/server.ts";

// Accounts in Chromium, with JavaScript and without. Behind TRUSTED_PROXIES=127.0.0.1 each simulated person sends
// an address of their own (X-Forwarded-For), so the sign-up limit of five per address and hour does not bite here.
const [server, browser] = await Promise.all([
  startServer("sqlite", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } }),
  launchBrowser(),
]);
const password = "a long and private passphrase";

/** The visits the current test opened; each is closed after it, and must have reported no problem. */
let visits: Visit[] = [];
const scriptless = new WeakSet<Page>();
/** Statuses the current test's forms answer on purpose (a wrong password: 401); Chromium logs each as an error. */
let refusals = new Set<number>();

function expectRefusals(...statuses: number[]): void {
  for (const status of statuses) refusals.add(status);
}

function isExpectedRefusal(problem: string): boolean {
  const status = /Failed to load resource: the server responded with a status of (\d{3})/.exec(problem)?.[1];
  return status !== undefined && refusals.has(Number(status));
}

after(async () => {
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

afterEach(async () => {
  const problems: string[] = [];
  for (const visit of visits) problems.push(...(await closeVisit(visit)));
  const unexpected = problems.filter((problem) => !isExpectedRefusal(problem));
  visits = [];
  refusals = new Set();
  assert.deepEqual(unexpected, [], "the browser reported console errors, page errors or failed requests");
});

/** A person at a browser of their own (fresh cookies), coming from an address of their own. */
async function newPerson(options: BrowserContextOptions = {}, ip = newClientIp()): Promise<Page> {
  const visit = await openVisit(browser, server.baseURL, { ...options, extraHTTPHeaders: { "X-Forwarded-For": ip } });
  visits.push(visit);
  if (options.javaScriptEnabled === false) scriptless.add(visit.page);
  return visit.page;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  if (!scriptless.has(page)) await waitForHydration(page);
}

function pathOf(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

async function waitForPath(page: Page, path: string): Promise<void> {
  await page.waitForURL((url) => `${url.pathname}${url.search}` === path);
}

function toast(page: Page, kind: keyof typeof toastTexts): Locator {
  return page.locator(".toast-region").getByText(toastTexts[kind], { exact: true });
}

function header(page: Page): Locator {
  return page.getByRole("banner");
}

function messageBox(page: Page): Locator {
  return page.getByRole("main").getByRole("alert");
}

function section(page: Page, title: string): Locator {
  return page.getByRole("region", { name: title });
}

async function signUp(page: Page, email: string, secret = password): Promise<void> {
  await open(page, paths.signUp());
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(secret);
  await page.getByRole("button", { name: "Sign up" }).click();
}

async function fillSignIn(page: Page, email: string, secret: string): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(secret);
  await page.getByRole("main").getByRole("button", { name: messages.signIn, exact: true }).click();
}

async function signIn(page: Page, email: string, secret = password): Promise<void> {
  await open(page, paths.signIn());
  await fillSignIn(page, email, secret);
}

async function signOut(page: Page): Promise<void> {
  await header(page).getByRole("button", { name: "Sign out" }).click();
  await waitForPath(page, paths.home());
  await toast(page, "signed-out").waitFor();
  await header(page).getByRole("link", { name: "Sign In" }).waitFor();
}

/** Waits for a signed-in page at `path`: the header offers Sign out. */
async function assertSignedInAt(page: Page, path: string): Promise<void> {
  await waitForPath(page, path);
  await header(page).getByRole("button", { name: "Sign out" }).waitFor();
}

async function assertInvalidCredentials(page: Page): Promise<void> {
  await messageBox(page).getByText(accountMessages.invalidCredentials, { exact: true }).waitFor();
  assert.equal(await page.getByLabel("Email", { exact: true }).getAttribute("aria-invalid"), "true");
  assert.equal(await page.getByLabel("Password", { exact: true }).getAttribute("aria-invalid"), "true");
  assert.equal(await header(page).getByRole("button", { name: "Sign out" }).count(), 0);
}

/** A new account, made over HTTP where signing up is not what a test is about. */
async function newAccount(ip = newClientIp()): Promise<{ email: string; visitor: Visitor }> {
  const email = newEmail();
  const visitor = new Visitor(server.baseURL, ip);
  await visitor.signUp(email, password);
  return { email, visitor };
}

/** A person signed in to a new account: its session cookie is handed to a fresh browser (as Epic Stack's login()). */
async function signedInPerson(): Promise<{ page: Page; email: string }> {
  const ip = newClientIp();
  const { email, visitor } = await newAccount(ip);
  const page = await newPerson({}, ip);
  const session = [...visitor.cookies].filter(([name]) => name.endsWith("session_token"));
  assert.equal(session.length, 1, `session cookies: ${visitor.cookieHeader()}`);
  await page.context().addCookies(session.map(([name, value]) => ({ name, value, url: server.baseURL })));
  return { page, email };
}

describe("signing up, in and out, and a forgotten password, in the browser", () => {
  it("signs up, out and in, then recovers a forgotten password through the mailed link", async () => {
    expectRefusals(401);
    const page = await newPerson();
    const email = newEmail();
    // The page's clock stands still from the click on, and moves only when told: the toast's 3000 ms (the spec's)
    // are counted on it exactly, however long a busy machine takes to render.
    await page.clock.install();
    await open(page, paths.signUp());
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.clock.pauseAt(Date.now() + 60_000);
    await page.getByRole("button", { name: "Sign up" }).click();
    await assertSignedInAt(page, paths.search());

    // The toast shows for three seconds, then goes.
    const signedIn = toast(page, "signed-in");
    await signedIn.waitFor();
    await page.clock.runFor(2_999);
    assert.ok(await signedIn.isVisible(), "the toast went before 3000 ms");
    await page.clock.runFor(1);
    await signedIn.waitFor({ state: "hidden" });
    await page.clock.resume();

    await signOut(page);
    await header(page).getByRole("link", { name: "Sign In" }).click();
    await waitForPath(page, paths.signIn());
    await fillSignIn(page, email, password);
    await assertSignedInAt(page, paths.search());
    await toast(page, "signed-in").waitFor();
    await signOut(page);

    await header(page).getByRole("link", { name: "Sign In" }).click();
    await page.getByRole("link", { name: "Lost Password" }).click();
    await waitForPath(page, paths.forgotPassword());
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByRole("main").getByRole("status").getByText(accountMessages.resetSent).waitFor();

    const mail = await waitForMail(server.outboxDir, { to: email, subject: /Reset your Candor password/ });
    const link = linkIn(mail, paths.resetPassword());
    await open(page, link.href);
    const newPassword = "a brand new passphrase";
    await page.getByLabel("New password").fill(newPassword);
    await page.getByRole("button", { name: "Save the new password" }).click();
    await waitForPath(page, `${paths.signIn()}?reset=done`);
    await page.getByText("Your password is changed. Sign in with your new password.").waitFor();

    await fillSignIn(page, email, newPassword);
    await assertSignedInAt(page, paths.search());
    await signOut(page);

    await signIn(page, email, password);
    await assertInvalidCredentials(page);
  });

  it("signs up, out and in without JavaScript", async () => {
    expectRefusals(401);
    const page = await newPerson({ javaScriptEnabled: false });
    const email = newEmail();
    await signUp(page, email);
    await assertSignedInAt(page, paths.search());
    await toast(page, "signed-in").waitFor();

    await signOut(page);
    await signIn(page, email, "not the password");
    await assertInvalidCredentials(page);
    await fillSignIn(page, email, password);
    await assertSignedInAt(page, paths.search());
    await toast(page, "signed-in").waitFor();
  });
});

describe("the sign-in and sign-up pages", () => {
  it("enables Submit only once the e-mail is longer than 5 characters and the password longer than 2", async () => {
    const page = await newPerson();
    await open(page, paths.signIn());
    const submit = page.getByRole("main").getByRole("button", { name: messages.signIn, exact: true });
    const email = page.getByLabel("Email", { exact: true });
    const secret = page.getByLabel("Password", { exact: true });
    assert.ok(await submit.isDisabled(), "Submit is enabled on an empty form");
    await email.fill("a@b.c");
    await secret.fill("abc");
    assert.ok(await submit.isDisabled(), "Submit is enabled with a 5-character e-mail");
    await email.fill("a@b.co");
    await secret.fill("ab");
    assert.ok(await submit.isDisabled(), "Submit is enabled with a 2-character password");
    await secret.fill("abc");
    assert.ok(await submit.isEnabled(), "Submit stays disabled with a 6-character e-mail and a 3-character password");
  });

  it("offers Browse, Lost Password and Create account on the sign-in page", async () => {
    const page = await newPerson();
    await open(page, paths.signIn());
    const main = page.getByRole("main");
    assert.equal(await main.getByRole("link", { name: "Browse" }).getAttribute("href"), paths.search());
    assert.equal(await main.getByRole("link", { name: "Lost Password" }).getAttribute("href"), paths.forgotPassword());
    assert.equal(await main.getByRole("link", { name: "Create account" }).getAttribute("href"), paths.signUp());
    await main.getByRole("link", { name: "Create account" }).click();
    await waitForPath(page, paths.signUp());
    await page.getByRole("heading", { name: "Create an account" }).waitFor();
  });

  it("offers Sign up and Browse on the sign-up page, and shows its errors in a message box", async () => {
    expectRefusals(400, 409);
    const page = await newPerson();
    await open(page, paths.signUp());
    const main = page.getByRole("main");
    assert.equal(await main.getByRole("button", { name: "Sign up" }).count(), 1);
    assert.equal(await main.getByRole("link", { name: "Browse" }).getAttribute("href"), paths.search());

    await signUp(page, newEmail(), "password");
    await messageBox(page).getByText(passwordMessages.common).waitFor();
    assert.equal(await page.getByLabel("Password", { exact: true }).getAttribute("aria-invalid"), "true");

    await signUp(page, newEmail(), "short");
    await messageBox(page).getByText(passwordMessages.tooShort).waitFor();

    const { email: taken } = await newAccount();
    await signUp(page, taken);
    await messageBox(page).getByText(accountMessages.emailTaken).waitFor();
    assert.equal(await page.getByLabel("Email", { exact: true }).getAttribute("aria-invalid"), "true");
    assert.equal(pathOf(page), paths.signUp());
  });
});

describe("where signing in leads", () => {
  it("sends a signed-in visitor from /signin to the home page", async () => {
    const { page } = await signedInPerson();
    await page.goto(paths.signIn());
    await waitForPath(page, paths.home());
  });

  it("sends a signed-out visitor from /account to sign in, and back to /account afterwards", async () => {
    const { email } = await newAccount();
    const page = await newPerson();
    await open(page, paths.account());
    assert.equal(pathOf(page), "/signin?redirectTo=%2Faccount");
    await fillSignIn(page, email, password);
    await assertSignedInAt(page, paths.account());
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  });

  for (const target of ["//evil.example", "https://evil.example"]) {
    it(`ignores redirectTo=${target} and lands on /search`, async () => {
      const { email } = await newAccount();
      const page = await newPerson();
      await open(page, `${paths.signIn()}?redirectTo=${encodeURIComponent(target)}`);
      await fillSignIn(page, email, password);
      await assertSignedInAt(page, paths.search());
    });
  }
});

/** The current code of the authenticator app that holds `secret` (base32, as the page shows it). */
async function totpCode(secret: string): Promise<string> {
  return createOTP(base32.decode(secret)).totp();
}

describe("two-factor authentication in the browser", () => {
  it("turns on with the password and a code, then asks for a code or a backup code at sign-in", async () => {
    expectRefusals(401);
    const { page, email } = await signedInPerson();
    await open(page, paths.account());
    const twoFactor = section(page, "Two-factor authentication");
    await twoFactor.getByLabel("Password", { exact: true }).fill(password);
    await twoFactor.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await twoFactor.getByRole("img", { name: "QR code of your two-factor secret" }).waitFor();
    const secret = ((await twoFactor.locator("code.secret").textContent()) ?? "").trim();
    assert.match(secret, /^[A-Z2-7]+$/);
    const backupCodes = await twoFactor.locator(".backup-codes code").allTextContents();
    assert.equal(backupCodes.length, 10);

    await twoFactor.getByLabel("Code from the app").fill(await totpCode(secret));
    await twoFactor.getByRole("button", { name: "Turn on two-factor authentication" }).click();
    await twoFactor.getByText("Two-factor authentication is on").waitFor();
    const voteKeyOf = async () => {
      const cookies = await page.context().cookies();
      return {
        voteKey: cookies.find((cookie) => cookie.name === "candor.vote_key")?.value,
        pending: cookies.some((cookie) => cookie.name === "candor.vote_key_pending"),
      };
    };
    // A password alone no longer signs in: the code is asked for, and the vote key waits for it, sealed. A vote key
    // left in this browser (another account's, whose session ended elsewhere) does not outlive the password step.
    await signOut(page);
    const origin = new URL(page.url()).origin;
    await page.context().addCookies([{ name: "candor.vote_key", value: "A".repeat(43), url: origin }]);
    await signIn(page, email);
    await waitForPath(page, paths.twoFactor(paths.search()));
    assert.deepEqual(await voteKeyOf(), { voteKey: undefined, pending: true });
    const code = await totpCode(secret);
    await page.getByLabel("Code", { exact: true }).fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await messageBox(page).getByText(accountMessages.codeInvalid).waitFor();
    assert.equal(await page.getByLabel("Code", { exact: true }).getAttribute("aria-invalid"), "true");
    await page.getByLabel("Code", { exact: true }).fill(await totpCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await assertSignedInAt(page, paths.search());
    await toast(page, "signed-in").waitFor();
    const { voteKey, pending } = await voteKeyOf();
    assert.match(voteKey ?? "", /^[A-Za-z0-9_-]{43}$/, "the vote key, once the code is given");
    assert.equal(pending, false, "the sealed one is gone");

    // A backup code works once.
    const backupCode = backupCodes[0]!;
    for (const attempt of ["first", "second"]) {
      await signOut(page);
      await signIn(page, email);
      await waitForPath(page, paths.twoFactor(paths.search()));
      await page.getByLabel("a backup code").check();
      await page.getByLabel("Code", { exact: true }).fill(backupCode);
      await page.getByRole("button", { name: "Verify" }).click();
      if (attempt === "first") {
        await assertSignedInAt(page, paths.search());
        assert.deepEqual(await voteKeyOf(), { voteKey, pending: false }, "the same vote key after a backup code");
      }
    }
    await messageBox(page).getByText(accountMessages.codeInvalid).waitFor();
    assert.equal(pathOf(page), paths.twoFactor(paths.search()));

    // Turned off with the password, it is asked for no more; this browser stays signed in meanwhile.
    await page.getByLabel("from my authenticator app").check();
    await page.getByLabel("Code", { exact: true }).fill(await totpCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await assertSignedInAt(page, paths.search());
    await open(page, paths.account());
    const turnOff = section(page, "Two-factor authentication");
    await turnOff.getByLabel("Password", { exact: true }).fill(password);
    await turnOff.getByRole("button", { name: "Turn off two-factor authentication" }).click();
    await turnOff.getByText(accountMessages.twoFactorDisabled).waitFor();
    await open(page, paths.account());
    assert.equal(pathOf(page), paths.account());
    await signOut(page);
    await signIn(page, email);
    await assertSignedInAt(page, paths.search());
  });
});

describe("the account page", () => {
  it("says that reviews stay published after the account is deleted", async () => {
    const { page } = await signedInPerson();
    await open(page, paths.account());
    const text = (await section(page, "Delete account").textContent()) ?? "";
    assert.match(text, /Reviews you wrote stay published/);
    assert.match(text, /never linked to your account/);
  });

  it("signs out the account's other sessions when the password is changed", async () => {
    const { page, email } = await signedInPerson();
    const otherDevice = await newPerson();
    await signIn(otherDevice, email);
    await assertSignedInAt(otherDevice, paths.search());

    await open(page, paths.account());
    const change = section(page, "Change password");
    await change.getByLabel("Current password").fill(password);
    const newPassword = "a changed passphrase";
    await change.getByLabel("New password").fill(newPassword);
    await change.getByRole("button", { name: "Change password" }).click();
    await change.getByRole("status").getByText(accountMessages.passwordChanged).waitFor();

    await open(page, paths.account());
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await open(otherDevice, paths.account());
    assert.equal(pathOf(otherDevice), "/signin?redirectTo=%2Faccount");
    await fillSignIn(otherDevice, email, newPassword);
    await assertSignedInAt(otherDevice, paths.account());
  });

  it("refuses a password change with the wrong current password", async () => {
    expectRefusals(400);
    const { page } = await signedInPerson();
    await open(page, paths.account());
    const change = section(page, "Change password");
    await change.getByLabel("Current password").fill("not the password");
    await change.getByLabel("New password").fill("a changed passphrase");
    await change.getByRole("button", { name: "Change password" }).click();
    await change.getByText(accountMessages.currentPasswordWrong).waitFor();
    assert.equal(await change.getByLabel("Current password").getAttribute("aria-invalid"), "true");
  });

  it("ends every session with Sign out everywhere", async () => {
    const { page, email } = await signedInPerson();
    const otherDevice = await newPerson();
    await signIn(otherDevice, email);
    await assertSignedInAt(otherDevice, paths.search());

    await open(page, paths.account());
    await section(page, "Sessions").getByRole("button", { name: "Sign out everywhere" }).click();
    await waitForPath(page, paths.home());
    await toast(page, "signed-out").waitFor();
    await header(page).getByRole("link", { name: "Sign In" }).waitFor();
    await open(page, paths.account());
    assert.equal(pathOf(page), "/signin?redirectTo=%2Faccount");
    await open(otherDevice, paths.account());
    assert.equal(pathOf(otherDevice), "/signin?redirectTo=%2Faccount");
  });

  it("deletes the account only with the password and the box ticked; then signing in fails", async () => {
    expectRefusals(400, 401);
    const { page, email } = await signedInPerson();
    await open(page, paths.account());
    const remove = section(page, "Delete account");
    const confirm = remove.getByLabel("I understand that this cannot be undone");

    await remove.getByLabel("Password", { exact: true }).fill(password);
    await remove.getByRole("button", { name: "Delete my account" }).click();
    await remove.getByText("Tick the box to confirm that you want to delete your account.").waitFor();
    // The error is tied to the checkbox, so a screen reader says it with the box.
    assert.equal(await confirm.getAttribute("aria-invalid"), "true");
    const describedBy = (await confirm.getAttribute("aria-describedby")) ?? "";
    assert.match(await page.locator(`[id="${describedBy}"]`).innerText(), /Tick the box to confirm/);

    await remove.getByLabel("Password", { exact: true }).fill("not the password");
    await confirm.check();
    await remove.getByRole("button", { name: "Delete my account" }).click();
    await remove.getByText(accountMessages.currentPasswordWrong).waitFor();

    await remove.getByLabel("Password", { exact: true }).fill(password);
    await confirm.check();
    await remove.getByRole("button", { name: "Delete my account" }).click();
    await waitForPath(page, paths.home());
    await toast(page, "signed-out").waitFor();

    await signIn(page, email);
    await assertInvalidCredentials(page);
  });
});
