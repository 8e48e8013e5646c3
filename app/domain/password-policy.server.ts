import { dictionary } from "@zxcvbn-ts/language-common";
import { z } from "zod";

export const minPasswordLength = 8;
/** At least 64 must be allowed (OWASP ASVS level 2); longer adds nothing but hashing work. */
export const maxPasswordLength = 128;

const common = new Set((dictionary["passwords-common"] as string[]).map((password) => password.toLowerCase()));

export const passwordMessages = {
  tooShort: `Use at least ${minPasswordLength} characters.`,
  tooLong: `Use at most ${maxPasswordLength} characters.`,
  common: "This password is too common. Choose one that is harder to guess.",
} as const;

/** True when the password is on the shipped list of common passwords (about 49,000, case-insensitive). */
export function isCommonPassword(password: string): boolean {
  return common.has(password.toLowerCase());
}

/** A new password: long enough, not absurdly long, not a common one. */
export const newPasswordSchema = z
  .string()
  .min(minPasswordLength, passwordMessages.tooShort)
  .max(maxPasswordLength, passwordMessages.tooLong)
  .refine((password) => !isCommonPassword(password), passwordMessages.common);
