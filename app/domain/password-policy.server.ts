import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";
import { z } from "zod";

export const minPasswordLength = 8;
/** At least 64 must be allowed (OWASP ASVS level 2); longer adds nothing but hashing work. */
export const maxPasswordLength = 128;
/**
 * zxcvbn's score runs from 0 to 4; 2 means it takes more than a million guesses ("aaaaaaaa", eight spaces,
 * "abcdefgh" and keyboard walks score 0), which the sign-in limits turn into years of online guessing.
 */
export const minPasswordScore = 2;

const common = new Set((dictionary["passwords-common"] as string[]).map((password) => password.toLowerCase()));
/**
 * zxcvbn rates a password's first 64 characters. Its time grows much faster than the length (measured on one core,
 * with the account's words: 14 ms at 64 characters, 128 ms at 96, 255 ms at 128, the longest allowed), and any
 * visitor may ask for a rating. What follows can only make a password harder to guess, so a longer one is refused
 * only when its first 64 characters would be.
 */
export const ratedPasswordLength = 64;
const strength = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, maxLength: ratedPasswordLength });

/** Words every guesser of a password here tries first: the site's name and tagline. */
const siteWords = ["candor", "transparency", "leadership"];

/** The years a guesser puts after a word first: this one and the next (people choose passwords that last a while). */
function guessedYears(now = new Date()): string[] {
  const year = now.getUTCFullYear();
  return [String(year), String(year + 1)];
}

/** The pieces of an e-mail address a guesser tries: the address, its local part and its words, the domain's name. */
function personalWords(email: string): string[] {
  const address = email.trim().toLowerCase();
  const [local = "", domain = ""] = address.split("@");
  const words = local.split(/[._+-]+/);
  return [address, local, words.join(""), ...words, domain.split(".")[0] ?? ""].filter((word) => word.length >= 3);
}

export const passwordMessages = {
  tooShort: `Use at least ${minPasswordLength} characters.`,
  tooLong: `Use at most ${maxPasswordLength} characters.`,
  common: "This password is too common. Choose one that is harder to guess.",
  weak: "This password is too easy to guess: avoid repeated letters, sequences and keyboard patterns. A few unrelated words make a strong one.",
  personal: "This password is too close to your e-mail address. Choose one that has nothing to do with it.",
  decorated:
    "One word with a year, digits or symbols around it is among the first things guessed. A few unrelated words make a strong password.",
} as const;

/** True when the password is on the shipped list of common passwords (about 49,000, case-insensitive). */
export function isCommonPassword(password: string): boolean {
  return common.has(password.toLowerCase());
}

type Rating = ReturnType<typeof strength.check>;

function rate(password: string, userInputs: readonly string[]): Rating {
  return strength.check(password, [...siteWords, ...guessedYears(), ...userInputs]);
}

/**
 * One word of a dictionary (zxcvbn's lists, the site's words, `userInputs`), in any case or with letters swapped for
 * lookalike digits, with nothing but digits, a year or symbols around it: "Summer2026!", "Candor2026!", "P@ssw0rd1".
 * Guessers try every word with such endings first (the rules of hashcat and John the Ripper), and zxcvbn's score
 * rates them above the floor all the same (Summer2026! at 10^7.5 guesses).
 */
function isDecoratedWord(password: string, rating: Rating): boolean {
  const words = rating.sequence.filter((match) => match.pattern === "dictionary" && /\p{L}/u.test(match.token));
  if (words.length !== 1) return false;
  const letters = (text: string) => text.match(/\p{L}/gu)?.length ?? 0;
  return letters(words[0]!.token) === letters(password);
}

/**
 * True when zxcvbn estimates the password below the floor (repeats, sequences, keyboard walks, dictionary words, the
 * site's name, and `userInputs`: what a guesser knows of the account), or it is one word with digits, a year or
 * symbols around it.
 */
export function isWeakPassword(password: string, userInputs: readonly string[] = []): boolean {
  const rating = rate(password, userInputs);
  return rating.score < minPasswordScore || isDecoratedWord(password, rating);
}

/**
 * Why a new password is refused, or undefined when it may be used: the one rule for every way of setting one. With
 * the account's `email`, a password easy to guess from the address (its local part, its words, the domain's name) is
 * refused too, with a message of its own. A password that passes costs one rating.
 */
export function newPasswordProblem(password: string, email?: string): string | undefined {
  if (password.length < minPasswordLength) return passwordMessages.tooShort;
  if (password.length > maxPasswordLength) return passwordMessages.tooLong;
  if (isCommonPassword(password)) return passwordMessages.common;
  const personal = email ? personalWords(email) : [];
  if (!isWeakPassword(password, personal)) return undefined;
  if (personal.length > 0 && !isWeakPassword(password)) return passwordMessages.personal;
  const rating = rate(password, []);
  return rating.score >= minPasswordScore && isDecoratedWord(password, rating)
    ? passwordMessages.decorated
    : passwordMessages.weak;
}

/** A new password: long enough, not absurdly long, not a common one, not easy to guess (from `email`, if given). */
export function newPasswordSchemaFor(email?: string) {
  return z.string().superRefine((password, context) => {
    const problem = newPasswordProblem(password, email);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}

export const newPasswordSchema = newPasswordSchemaFor();
