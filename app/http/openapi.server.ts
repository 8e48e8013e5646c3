import { z } from "zod";
import {
  companyReviewBodySchema,
  idParamSchema,
  managerReviewBodySchema,
  tokenReviewBodySchema,
  managerReviewSchema,
  newCompanyBodySchema,
  newManagerBodySchema,
} from "#app/domain/api-input.server.ts";
import {
  companyProfileSchema,
  comparisonSchema,
  companyReviewItemSchema,
  companySearchResultSchema,
  companySuggestionsSchema,
  countrySchema,
  createdReviewSchema,
  helpfulVoteResultSchema,
  queuedSchema,
  createdSchema,
  reportCreatedSchema,
  withdrawnSchema,
  decisionResultSchema,
  moderationLogSchema,
  moderationQueueSchema,
  releaseResultSchema,
  managerCardSchema,
  managerProfileSchema,
  managerReviewItemSchema,
  pageSchema,
  problemSchema,
  searchListsSchema,
  tagsSchema,
  industriesSchema,
  knownCitiesSchema,
  tokenAccountSchema,
  tokenPairSchema,
  transparencySchema,
  verificationChallengeSchema,
  reviewTokenKeySchema,
  reviewTokenSignatureSchema,
  verificationKeysSchema,
  verificationSignaturesSchema,
} from "#app/domain/public-shapes.server.ts";
import { decisionBodySchema, reportSchema, reviewKeyRequestSchema } from "#app/domain/moderation.server.ts";
import { releaseBodySchema } from "#app/domain/signals.server.ts";
import { searchListLength } from "#app/domain/subjects.server.ts";
import { compareMessages, contributionMessages, messages, voteMessages } from "#app/lib/messages.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { moderationMessages, signalMessages } from "#app/lib/moderation.ts";
import { reviewSorts } from "#app/domain/reviews.server.ts";
import { helpfulVoteSchema } from "#app/domain/helpful-votes.server.ts";
import { compareLimits, maxSearchTermLength } from "#app/lib/limits.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import { verificationAddressSchema, verificationCodeSchema } from "#app/domain/verification.server.ts";
import { reviewTokenRequestSchema } from "#app/domain/review-tokens.server.ts";

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the zod schemas that validate requests and shape responses.
 */

function schema(type: z.ZodType, io: "input" | "output" = "output") {
  const { $schema: _dialect, ...json } = z.toJSONSchema(type, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
  }) as Record<string, unknown>;
  return json;
}

const problemResponse = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

const errors = {
  "400": problemResponse("Bad input; `errors` names each bad field"),
  "429": problemResponse("Too many requests; see Retry-After"),
};

const json = (ref: string, description = "OK") => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});

function query(name: string, description: string, required = false) {
  return { name, in: "query", required, description, schema: { type: "string" } };
}

/** The sort and filters of a review list (`reviewListSchema`), and its cursor. */
function reviewListParameters(subject: "company" | "manager") {
  return [
    {
      name: "sort",
      in: "query",
      required: false,
      schema: { type: "string", enum: [...reviewSorts], default: "newest" },
      description:
        "newest first; by overall score, highest or lowest first; or most helpful (most helpful votes) first; newest first among equals",
    },
    {
      name: "rating",
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 5 },
      description: "Only reviews with this overall score (their mean rating, rounded down)",
    },
    {
      name: "tag",
      in: "query",
      required: false,
      schema: { type: "string", enum: [...(subject === "company" ? companyTags : managerTags)] },
      description: "Only reviews carrying this tag",
    },
    {
      name: "q",
      in: "query",
      required: false,
      schema: { type: "string", maxLength: maxSearchTermLength },
      description: "Only reviews whose text contains every word (case ignored; on SQLite for ASCII letters only)",
    },
    query("before", "Cursor from the previous page's `next`, with the same sort and filters"),
  ];
}

function pathId(name: string) {
  return { name, in: "path", required: true, schema: schema(idParamSchema, "input") };
}

/** Reviews are published in batches; 201 only when the server publishes each submission at once (PUBLISH_INTERVAL=0). */
const queuedDescription =
  "Accepted: the review waits for the next publication (shuffled batches, MANAGER_MIN_REVIEWS for managers); note says when it will appear. A server that publishes at once answers 201.";

const searchParameters = [
  query("country", "ISO 3166-1 alpha-2 code, from GET /api/v1/countries", true),
  query("q", "Part of the name; case and accents do not matter", true),
  query("after", "Cursor from the previous page's `next`"),
];

/** How a search orders and pages its matches (decision 0033). */
const searchDescription =
  "Names that start with `q` come first, by name; then the names that contain it elsewhere, by name on each page. Each page reads a bounded number of names, so a page may hold fewer than 20 items (even none) while `next` says more follow: follow `next` until it is null.";

const bearer = [{ bearerAuth: [] }, { sessionCookie: [] }];

/** What every POST may answer about its body and origin. */
const bodyErrors = {
  "403": problemResponse("Cross-site request refused"),
  "413": problemResponse("Body larger than 96 KiB"),
  "415": problemResponse("Body is not JSON or form data"),
};

const writeErrors = {
  ...errors,
  "401": problemResponse(`Not signed in: "${"You must be logged in to submit a review."}"`),
  ...bodyErrors,
};

/**
 * The account key on a write that counts per account (a review, a one-review token, a helpful vote): what the
 * review's receipt and author tag are made with, so that nothing the server keeps names the author.
 */
const accountKeyHeader = {
  name: "Candor-Account-Key",
  in: "header",
  required: false,
  description:
    "The account's key: `vote_key` as POST /api/v1/auth/token (grant_type=password) answered it (the older header name Candor-Vote-Key is read too). Needed with a bearer token; a browser's session sends it as its cookie. The server keeps only a digest of it that tells it is this account's, and cannot recompute from it what it made.",
  schema: { type: "string", pattern: "^[A-Za-z0-9_-]{43}$" },
};

const keyedWriteErrors = {
  ...writeErrors,
  "401": problemResponse(
    `Not signed in, or no account key (code \`account-key-required\`): "${voteMessages.keyHeaderMissing}"`,
  ),
};

/** What `verification_token` does on a write that publishes a review: the badge, when the domain's threshold is met. */
const badgeDescription = (website: string) =>
  `With \`verification_token\` (a token obtained through /api/v1/verification/tokens for the domain of ${website}, this quarter) the review carries the badge "Verified: works at <domain>" once at least VERIFIED_MIN_PEOPLE addresses of that domain have verified this quarter; below that the review is accepted without the badge, the token is not spent, and \`verification.badge\` is \`withheld\`.`;

const tokenRefused = problemResponse(
  `Bad input; \`errors\` names each bad field. A refused token: "${verificationMessages.tokenInvalid}", "${verificationMessages.tokenQuarter}", or a token of another domain (code \`token-domain\`)`,
);

const tokenSpent = `"${verificationMessages.tokenSpent}" (code \`token-spent\`)`;

function body(ref: string) {
  return { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } };
}

export function openApiDocument(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: `${messages.siteName} API`,
      version: "1.0.0",
      summary: messages.tagline,
      description:
        "Open data of anonymous reviews of managers and companies. Reads are public, cached (ETag, Cache-Control) and open to any origin; writes need an access token (POST /api/v1/auth/token) or the site's session cookie. Nothing returned identifies an author: reviews carry their month only.",
    },
    servers: [{ url: serverUrl }],
    paths: {
      "/api/v1/countries": {
        get: { summary: "Countries", responses: { "200": json("CountryList"), "429": errors["429"] } },
      },
      "/api/v1/countries/{country}/cities": {
        get: {
          summary: "Cities already known in a country, with their state or region, the most listed first (at most 100)",
          parameters: [
            {
              name: "country",
              in: "path",
              required: true,
              description: "ISO 3166-1 alpha-2 code, from GET /api/v1/countries",
              schema: { type: "string" },
            },
          ],
          responses: { "200": json("KnownCities"), ...errors },
        },
      },
      "/api/v1/industries": {
        get: {
          summary: "Industries: the ISIC Rev. 4 sections a company is given one of, by letter and title",
          responses: { "200": json("Industries"), "429": errors["429"] },
        },
      },
      "/api/v1/tags": { get: { summary: "Review tags", responses: { "200": json("Tags"), "429": errors["429"] } } },
      "/api/v1/companies": {
        get: {
          summary: "Search companies in a country",
          description: searchDescription,
          parameters: searchParameters,
          responses: { "200": json("CompanyPage"), ...errors },
        },
        post: {
          summary: "Add a company with its first review",
          security: bearer,
          parameters: [accountKeyHeader],
          description: badgeDescription("the new company's website"),
          requestBody: body("NewCompany"),
          responses: {
            "201": json("Created", "Created"),
            "202": json("Queued", queuedDescription),
            ...keyedWriteErrors,
            "400": tokenRefused,
            "409": problemResponse(`"This company already exists." or ${tokenSpent}`),
          },
        },
      },
      "/api/v1/companies/top": {
        get: {
          summary: `A country's ${searchListLength} most reviewed and ${searchListLength} best rated companies`,
          parameters: [query("country", "ISO 3166-1 alpha-2 code, from GET /api/v1/countries", true)],
          responses: { "200": json("CompanyLists"), ...errors },
        },
      },
      "/api/v1/companies/suggestions": {
        get: {
          summary: "Companies with a similar name (possible duplicates), from 5 characters",
          parameters: [query("q", "The name being typed", true)],
          responses: { "200": json("CompanySuggestions", "Up to 10 companies"), ...errors },
        },
      },
      "/api/v1/companies/{companyId}": {
        get: {
          summary: "A company",
          parameters: [pathId("companyId")],
          responses: { "200": json("Company"), ...errors, "404": problemResponse(messages.noCompanyFound) },
        },
      },
      "/api/v1/companies/{companyId}/reviews": {
        get: {
          summary: "A company's reviews, newest first unless sorted, narrowed by score, tag and words",
          parameters: [pathId("companyId"), ...reviewListParameters("company")],
          responses: { "200": json("CompanyReviewPage"), ...errors, "404": problemResponse(messages.noCompanyFound) },
        },
        post: {
          summary: "Review a company",
          security: bearer,
          parameters: [accountKeyHeader, pathId("companyId")],
          description: badgeDescription("the company's website"),
          requestBody: body("CompanyReviewInput"),
          responses: {
            "201": json("CreatedReview", "Created"),
            "202": json("Queued", queuedDescription),
            ...keyedWriteErrors,
            "400": tokenRefused,
            "404": problemResponse("No such company"),
            "409": problemResponse(tokenSpent),
          },
        },
      },
      "/api/v1/companies/{companyId}/managers": {
        get: {
          summary: "A company's managers",
          parameters: [pathId("companyId"), query("after", "Cursor from the previous page's `next`")],
          responses: { "200": json("ManagerPage"), ...errors, "404": problemResponse(messages.noCompanyFound) },
        },
      },
      "/api/v1/compare": {
        get: {
          summary: "2 to 4 companies or 2 to 4 managers side by side: their profiles, trends and percentiles",
          parameters: [
            {
              name: "company",
              in: "query",
              required: false,
              description: "A company's id; repeat for each (2 to 4). Not with `manager`.",
              schema: { type: "array", items: { type: "integer", minimum: 1 }, minItems: 2, maxItems: 4 },
              style: "form",
              explode: true,
            },
            {
              name: "manager",
              in: "query",
              required: false,
              description: "A manager's id; repeat for each (2 to 4). Not with `company`.",
              schema: { type: "array", items: { type: "integer", minimum: 1 }, minItems: 2, maxItems: 4 },
              style: "form",
              explode: true,
            },
          ],
          responses: {
            "200": json("Comparison"),
            "400": problemResponse(
              `"${compareMessages.tooFew(compareLimits.min)}", "${compareMessages.tooMany(compareLimits.max)}", "${compareMessages.mixed}", "${compareMessages.repeated}", or an id that is not a number`,
            ),
            "429": errors["429"],
            "404": problemResponse("No company or manager with one of the ids"),
          },
        },
      },
      "/api/v1/managers": {
        get: {
          summary: "Search managers in a country",
          description: searchDescription,
          parameters: searchParameters,
          responses: { "200": json("ManagerPage"), ...errors },
        },
        post: {
          summary: "Add a manager with their first review",
          security: bearer,
          parameters: [accountKeyHeader],
          description: badgeDescription("the manager's company's website (`company_id`'s, or the new `company`'s)"),
          requestBody: body("NewManager"),
          responses: {
            "201": json("Created", "Created"),
            "202": json("Queued", queuedDescription),
            ...keyedWriteErrors,
            "400": tokenRefused,
            "404": problemResponse("No such company"),
            "409": problemResponse(
              `"This company already exists." (a new company given in full), "${contributionMessages.managerExists}" (a manager whose name looks the same, with the same LinkedIn profile), or ${tokenSpent}`,
            ),
          },
        },
      },
      "/api/v1/managers/top": {
        get: {
          summary: `A country's ${searchListLength} most reviewed and ${searchListLength} best rated managers with at least MANAGER_MIN_REVIEWS reviews`,
          parameters: [query("country", "ISO 3166-1 alpha-2 code, from GET /api/v1/countries", true)],
          responses: { "200": json("ManagerLists"), ...errors },
        },
      },
      "/api/v1/managers/{managerId}": {
        get: {
          summary: "A manager",
          parameters: [pathId("managerId")],
          responses: { "200": json("Manager"), ...errors, "404": problemResponse(messages.noManagerProfileFound) },
        },
      },
      "/api/v1/managers/{managerId}/reviews": {
        get: {
          summary: "A manager's reviews, newest first unless sorted, narrowed by score, tag and words",
          parameters: [pathId("managerId"), ...reviewListParameters("manager")],
          responses: {
            "200": json("ManagerReviewPage"),
            ...errors,
            "404": problemResponse(messages.noManagerProfileFound),
          },
        },
        post: {
          summary: "Review a manager (once per account)",
          security: bearer,
          parameters: [accountKeyHeader, pathId("managerId")],
          description: badgeDescription("one of the manager's companies' websites"),
          requestBody: body("ManagerReviewBody"),
          responses: {
            "201": json("CreatedReview", "Created"),
            "202": json("Queued", queuedDescription),
            ...keyedWriteErrors,
            "400": tokenRefused,
            "404": problemResponse("No such manager"),
            "409": problemResponse(`"You have already reviewed this manager." or ${tokenSpent}`),
          },
        },
      },
      "/api/v1/verification/codes": {
        post: {
          summary: "Verify a work address, step 1: mail a 6-digit code to it",
          description:
            "Refuses free-mail services and addresses without a registrable domain. Answers the challenge the code goes with and the signing key of the address's registrable domain for this quarter (one key per domain and quarter, listed at /.well-known/candor-keys.json: check it there before blinding). The address is not stored; rate-limited per client, account and address.",
          security: bearer,
          requestBody: body("VerificationAddress"),
          responses: {
            "201": json("VerificationChallenge", "Code mailed"),
            ...writeErrors,
            "400": problemResponse(
              `"${verificationMessages.addressInvalid}" or "${verificationMessages.freeMail}" (code \`free-mail\`)`,
            ),
          },
        },
      },
      "/api/v1/verification/tokens": {
        post: {
          summary: "Verify a work address, step 2: the code, and up to 3 blinded tokens to sign",
          description:
            "Each `blinded` value is an RFC 9474 blinded message (RSABSSA-SHA384-PSS-Deterministic, 256 bytes, base64url) of the token message `candor-verified-v1|<domain>|<quarter>|<nonce>`, with a 32-byte random nonce in base64url. Answers the blind signatures in the same order; finalize them with the listed key. The token to send with a review is `v1~<domain>~<quarter>~<nonce>~<signature>`.",
          security: bearer,
          requestBody: body("VerificationCode"),
          responses: {
            "200": json("VerificationSignatures", "Signed"),
            ...writeErrors,
            "400": problemResponse(`"${verificationMessages.codeWrong}", "${verificationMessages.codeInvalid}"`),
            "409": problemResponse(`"${verificationMessages.alreadyVerified}"`),
            "410": problemResponse(`"${verificationMessages.codeExpired}"`),
          },
        },
      },
      "/api/v1/review-tokens/key": {
        get: {
          summary: "One review per manager without an account on it, step 1: this quarter's one-review key",
          description:
            "A partially blind RSA key (RSAPBSSA-SHA384-PSS-Deterministic, draft-irtf-cfrg-partially-blind-rsa), one per quarter for every manager: the manager and the quarter are the public metadata `candor-one-review-v1|manager:<managerId>|<period>`.",
          responses: { "200": json("ReviewTokenKey"), ...errors },
        },
      },
      "/api/v1/managers/{managerId}/review-tokens": {
        post: {
          summary: "Step 2, signed in: the blinded one-review token for this manager, once per account",
          description:
            "`blinded` is the RSAPBSSA blinded message (256 bytes, base64url) of `candor-one-review-v1|<nonce>` (a 32-byte random nonce in base64url) under the metadata above. The account's one review of this manager is taken now: a second request, or a review by this account through POST /api/v1/managers/{managerId}/reviews, is refused. Finalize the answer into `r1~<managerId>~<period>~<nonce>~<signature>` and keep it; send it later with the review, without a session.",
          security: bearer,
          parameters: [accountKeyHeader, pathId("managerId")],
          requestBody: body("ReviewTokenRequest"),
          responses: {
            "200": json("ReviewTokenSignature", "Signed"),
            ...keyedWriteErrors,
            "400": problemResponse(`"${verificationMessages.requestInvalid}"`),
            "404": problemResponse("No such manager"),
            "409": problemResponse(`"${verificationMessages.reviewTokenTaken}" (code \`review-token-taken\`)`),
          },
        },
      },
      "/api/v1/managers/{managerId}/token-reviews": {
        post: {
          summary: "Step 3, without a session: a review of the manager that spends its one-review token",
          description: `Send no cookie and no Authorization header: the token stands in for the account, and a request with either is refused. ${badgeDescription("one of the manager's companies' websites")}`,
          parameters: [pathId("managerId")],
          requestBody: body("TokenReviewInput"),
          responses: {
            "201": json("CreatedReview", "Created"),
            "202": json("Queued", queuedDescription),
            ...errors,
            ...bodyErrors,
            "400": problemResponse(
              `"${verificationMessages.reviewTokenSession}" (code \`review-token-session\`), "${verificationMessages.reviewTokenInvalid}", "${verificationMessages.reviewTokenManager}" (code \`review-token-manager\`), or a refused verification token`,
            ),
            "404": problemResponse("No such manager"),
            "409": problemResponse(
              `"${verificationMessages.reviewTokenSpent}" (code \`review-token-spent\`) or ${tokenSpent}`,
            ),
          },
        },
      },
      "/.well-known/candor-keys.json": {
        get: {
          summary: "Every public verification key: one per (registrable domain, quarter)",
          parameters: [query("domain", "Only this domain's keys")],
          responses: { "200": json("VerificationKeys"), "429": errors["429"] },
        },
      },
      "/api/v1/reviews/{reviewId}/reports": {
        post: {
          summary: "Report a review to the moderators (no account needed)",
          description:
            "The optional contact address receives the decision notice and is erased once it is sent. Rate limited per client.",
          parameters: [{ name: "reviewId", in: "path", required: true, schema: { type: "string" } }],
          requestBody: body("ReportInput"),
          responses: {
            "201": json("ReportCreated", "Reported"),
            ...errors,
            ...bodyErrors,
            "404": problemResponse(moderationMessages.reviewNotFound),
          },
        },
      },
      "/api/v1/helpful-votes": {
        post: {
          summary: "Mark a review as helpful (helpful: true), or take the mark back (false); one vote per account",
          description:
            "Needs the signed-in account's own key in the Candor-Account-Key header, as POST /api/v1/auth/token (grant_type=password) answered it (`vote_key`); any other key is refused (401), so an account votes once. The server stores only HMAC(vote key, review id), never the account with it, and counts the vote on the review in the same transaction. One address for every review: the request log names none. Rate limited per client.",
          security: bearer,
          parameters: [accountKeyHeader],
          requestBody: body("HelpfulVoteInput"),
          responses: {
            "200": json("HelpfulVoteResult"),
            ...keyedWriteErrors,
            "404": problemResponse(voteMessages.reviewNotFound),
            "409": problemResponse(`"${voteMessages.alreadyVoted}" or "${voteMessages.notVoted}"`),
          },
        },
      },
      "/api/v1/moderation/decisions": {
        get: {
          summary: "The public moderation log, newest first",
          parameters: [query("before", "Decision number from the previous page's `next`")],
          responses: { "200": json("ModerationLog"), ...errors },
        },
        post: {
          summary: "Decide on a review: keep, remove (with a reason) or restore (moderator role required)",
          security: bearer,
          requestBody: body("DecisionInput"),
          responses: {
            "201": json("DecisionResult", "Decided"),
            ...writeErrors,
            "403": problemResponse(moderationMessages.forbidden),
            "404": problemResponse(moderationMessages.reviewNotFound),
            "409": problemResponse(`"${moderationMessages.alreadyRemoved}" or "${moderationMessages.notRemoved}"`),
          },
        },
      },
      "/api/v1/moderation/alerts": {
        post: {
          summary: "Release a manipulation alert with a statement (moderator role required)",
          description:
            "The subject's page loses its Unusual activity notice once every alert of it is released, and its waiting reviews go out with the next batch.",
          security: bearer,
          requestBody: body("AlertRelease"),
          responses: {
            "201": json("AlertReleased", "Released"),
            ...writeErrors,
            "403": problemResponse(moderationMessages.forbidden),
            "404": problemResponse(signalMessages.alertNotFound),
            "409": problemResponse(signalMessages.alreadyReleased),
          },
        },
      },
      "/api/v1/moderation/queue": {
        get: {
          summary:
            "Open reports grouped per review, oldest first, and open manipulation alerts (moderator role required)",
          security: bearer,
          responses: {
            "200": json("ModerationQueue"),
            "401": problemResponse("Not signed in"),
            "403": problemResponse(moderationMessages.forbidden),
            "429": errors["429"],
          },
        },
      },
      "/api/v1/review-key": {
        post: {
          summary: "With a review's one-time key: appeal its removal, or withdraw it (no account needed)",
          requestBody: body("ReviewKeyRequest"),
          responses: {
            "200": json("Withdrawn", "Withdrawn: the review is deleted"),
            "201": json("ReportCreated", "Appeal received"),
            ...errors,
            ...bodyErrors,
            "404": problemResponse(moderationMessages.keyUnknown),
            "409": problemResponse(moderationMessages.appealNotRemoved),
          },
        },
      },
      "/api/v1/transparency": {
        get: {
          summary: "Reports and moderation decisions per month, as /transparency shows them",
          responses: { "200": json("Transparency"), ...errors },
        },
      },
      "/api/v1/auth/token": {
        post: {
          summary: "Sign in (grant_type=password) or refresh (grant_type=refresh_token)",
          description:
            "Refreshing spends the refresh token and returns a new pair; presenting a spent refresh token again revokes every token of its session.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    {
                      type: "object",
                      required: ["grant_type", "email", "password"],
                      properties: {
                        grant_type: { const: "password" },
                        email: { type: "string" },
                        password: { type: "string" },
                        totp_code: { type: "string", pattern: "^\\d{6}$" },
                      },
                    },
                    {
                      type: "object",
                      required: ["grant_type", "refresh_token"],
                      properties: { grant_type: { const: "refresh_token" }, refresh_token: { type: "string" } },
                    },
                  ],
                },
              },
            },
          },
          responses: {
            "200": json("TokenPair"),
            ...errors,
            "401": problemResponse("Invalid credentials or token"),
            ...bodyErrors,
          },
        },
      },
      "/api/v1/auth/revoke": {
        post: {
          summary: "Sign out: revoke a refresh token's whole family",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["refresh_token"],
                  properties: { refresh_token: { type: "string" } },
                },
              },
            },
          },
          responses: {
            "204": { description: "Revoked (also when the token was unknown)" },
            "400": errors["400"],
            ...bodyErrors,
          },
        },
      },
      "/api/v1/auth/user": {
        get: {
          summary: "The account of the access token (to check a token)",
          security: [{ bearerAuth: [] }],
          responses: {
            "200": json("TokenAccount"),
            "401": problemResponse("No valid access token"),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "access_token from POST /api/v1/auth/token" },
        sessionCookie: { type: "apiKey", in: "cookie", name: "candor.session_token" },
      },
      schemas: {
        Problem: schema(problemSchema),
        CountryList: schema(z.array(countrySchema)),
        Tags: schema(tagsSchema),
        Industries: schema(industriesSchema),
        KnownCities: schema(knownCitiesSchema),
        CompanyPage: schema(pageSchema(companySearchResultSchema)),
        CompanyLists: schema(searchListsSchema(companySearchResultSchema)),
        ManagerLists: schema(searchListsSchema(managerCardSchema)),
        ManagerPage: schema(pageSchema(managerCardSchema)),
        Company: schema(companyProfileSchema),
        Manager: schema(managerProfileSchema),
        Comparison: schema(comparisonSchema),
        CompanyReviewPage: schema(pageSchema(companyReviewItemSchema)),
        ManagerReviewPage: schema(pageSchema(managerReviewItemSchema)),
        Created: schema(createdSchema),
        ReportCreated: schema(reportCreatedSchema),
        CreatedReview: schema(createdReviewSchema),
        Queued: schema(queuedSchema),
        TokenPair: schema(tokenPairSchema),
        TokenAccount: schema(tokenAccountSchema),
        CompanySuggestions: schema(companySuggestionsSchema),
        NewCompany: schema(newCompanyBodySchema, "input"),
        NewManager: schema(newManagerBodySchema, "input"),
        CompanyReviewInput: schema(companyReviewBodySchema, "input"),
        VerificationAddress: schema(verificationAddressSchema, "input"),
        VerificationChallenge: schema(verificationChallengeSchema),
        VerificationCode: schema(verificationCodeSchema, "input"),
        VerificationSignatures: schema(verificationSignaturesSchema),
        VerificationKeys: schema(verificationKeysSchema),
        ReviewTokenKey: schema(reviewTokenKeySchema),
        ReviewTokenRequest: schema(reviewTokenRequestSchema, "input"),
        ReviewTokenSignature: schema(reviewTokenSignatureSchema),
        TokenReviewInput: schema(tokenReviewBodySchema, "input"),
        ManagerReviewInput: schema(managerReviewSchema, "input"),
        ManagerReviewBody: schema(managerReviewBodySchema, "input"),
        ReportInput: schema(reportSchema, "input"),
        HelpfulVoteInput: schema(helpfulVoteSchema, "input"),
        HelpfulVoteResult: schema(helpfulVoteResultSchema),
        ReviewKeyRequest: schema(reviewKeyRequestSchema, "input"),
        Withdrawn: schema(withdrawnSchema),
        DecisionInput: schema(decisionBodySchema, "input"),
        DecisionResult: schema(decisionResultSchema),
        ModerationLog: schema(moderationLogSchema),
        ModerationQueue: schema(moderationQueueSchema),
        AlertRelease: schema(releaseBodySchema, "input"),
        AlertReleased: schema(releaseResultSchema),
        Transparency: schema(transparencySchema),
      },
    },
  };
}
