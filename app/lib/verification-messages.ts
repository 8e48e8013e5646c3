/**
 * The texts of verifying a work address and of the tokens it gives (docs/decisions/0030-blind-signed-verification-tokens.md
 * and 0031-one-review-tokens.md): a module of their own, so that pages without these forms do not load them.
 */
import { contributionMessages } from "./messages.ts";

export const verificationMessages = {
  addressInvalid: "Enter your work e-mail address, such as jane@example.com.",
  freeMail: "This is a free e-mail service: enter the address your employer gave you.",
  forwardingMail:
    "This address belongs to a forwarding or throwaway e-mail service: enter the address your employer gave you.",
  codeSent: (domain: string) =>
    `We have sent a 6-digit code to your address at ${domain}. It works for 15 minutes. Type it below.`,
  codeInvalid: "Enter the 6-digit code from the mail.",
  codeWrong: "That code is not right. Check the latest mail from us and try again.",
  codeExpired: "This code has expired or was used up. Ask for a new one.",
  alreadyVerified: "This address has already been verified this quarter: each address can be verified once a quarter.",
  needsJavaScript:
    "Verification needs JavaScript: your browser makes the tokens itself, so that not even we can tie them to you.",
  requestInvalid: "The verification request was not understood. Reload the page and try again.",
  keyMismatch:
    "The signing key we were given is not the one listed publicly for this domain, so we stopped: reload and try again, or tell us.",
  verified: (domain: string, count: number) =>
    `Done: this browser now holds ${count} verification tokens for ${domain}, valid until the end of the quarter. Each one can badge one review of a company whose website is on ${domain}, or of one of its managers.`,
  tokenInvalid: "This verification token is not valid.",
  tokenDomain: (tokenDomain: string, companyDomain: string) =>
    `This verification token is for ${tokenDomain}, but this company's website is on ${companyDomain}.`,
  tokenManagerDomain: (tokenDomain: string, companyDomains: string) =>
    `This verification token is for ${tokenDomain}, but this manager's companies are on ${companyDomains}.`,
  tokenQuarter: "This verification token is from another quarter: verify your work address again.",
  tokenSpent: "This verification token has already been used.",
  // The product's own words for a second review of a manager, whichever path (form or token) or tab asks.
  reviewTokenTaken: contributionMessages.alreadyReviewed,
  reviewTokenInvalid: "This review token is not valid.",
  reviewTokenManager: "This review token is for another manager.",
  reviewTokenSpent: "This review token has already been used: each account can review a manager once.",
  reviewTokenSession:
    "Send a review with a review token without your session (no cookie, no access token): the token stands in for your account.",
  badgeWithheld: (domain: string, minimum: number) =>
    `Your review will appear without the “Verified” badge: fewer than ${minimum} people from ${domain} have verified this quarter, and a badge from so few could point to you. Your token was not used.`,
  badgeIfWebsite: (domains: string) =>
    `If the company's website is on ${domains}, your review will carry the badge “Verified: works at …”: this browser sends one of its verification tokens with it, and nothing ties the token to you.`,
  verifyInvitation:
    "Do you work there? Verify your work address first, and your review can carry the badge “Verified: works at …” without tying it to you.",
  verifyLink: "Verify your work address",
  badgeComing: (domain: string) =>
    `Your review will carry the badge “Verified: works at ${domain}”. This browser sends one of its verification tokens with it; nothing ties the token to you.`,
} as const;
