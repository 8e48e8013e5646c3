// `npm run admin -- COMMAND …`: moderation from the command line (docs/moderation.md). Honours DATABASE_URL.
//   grant moderator|admin EMAIL     give an account a role (it is shown by a pseudonym, never its e-mail)
//   revoke EMAIL                    take every role from an account
//   reports                         list the open reports, grouped per review, oldest first
//   remove REVIEW_ID REASON "statement of reasons"
//   keep REVIEW_ID "statement of reasons"
//   restore REVIEW_ID "statement of reasons"
//   alerts                          list the open manipulation alerts
//   release ALERT_ID "statement"    release an alert: the subject's waiting reviews go out with the next batch
//   scan                            run today's manipulation scan now (once a day, whoever runs it)
//   peers                           rank every company and manager among its peers now (the job does a few groups a run)
//   set-aside [retry|forget]        list the queued reviews publication set aside, and why; retry them with the next
//                                   batch; or forget those no key opens any more
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { decide, decisionSchema, grantRole, moderationQueue, revokeRole } from "#app/domain/moderation.server.ts";
import { rankAllPeers } from "#app/domain/percentiles.server.ts";
import {
  forgetUnopenable,
  publicationSettings,
  retrySetAside,
  setAsideReasons,
} from "#app/domain/publication.server.ts";
import { scanForManipulation } from "#app/domain/signal-scan.server.ts";
import { openAlerts, releaseAlert, releaseSchema } from "#app/domain/signals.server.ts";
import { env } from "#app/lib/env.server.ts";
import { isReportReason, moderationRoles, type ModerationRole, reportReasonCodes } from "#app/lib/moderation.ts";
import { announceChange } from "#server/shared-state.ts";

const usage = `Usage: npm run admin -- COMMAND
  grant moderator|admin EMAIL
  revoke EMAIL
  reports
  remove REVIEW_ID REASON "statement of reasons"   (REASON: ${reportReasonCodes.join(", ")})
  keep REVIEW_ID "statement of reasons"
  restore REVIEW_ID "statement of reasons"
  alerts
  release ALERT_ID "statement"
  scan
  peers
  set-aside [retry|forget]`;

/** What the log shows as the author of a decision taken here. */
const operator = "Operator";

function fail(message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

const [command, ...args] = process.argv.slice(2);
if (!command || command === "--help" || command === "-h") {
  console.log(usage);
  process.exit(command ? 0 : 2);
}

const handle = openDatabase(env().DATABASE_URL);
try {
  await migrateToLatest(handle.db);
  const db = handle.db;
  switch (command) {
    case "grant": {
      const [role, email] = args;
      if (!moderationRoles.includes(role as ModerationRole) || !email) fail("grant needs a role and an e-mail.");
      const granted = await grantRole(db, email, role as ModerationRole);
      console.log(`${email} is now ${granted.role}, shown as "${granted.pseudonym}".`);
      break;
    }
    case "revoke": {
      const [email] = args;
      if (!email) fail("revoke needs an e-mail.");
      console.log((await revokeRole(db, email)) ? `${email} has no role any more.` : `${email} had no role.`);
      break;
    }
    case "reports": {
      const queue = await moderationQueue(db);
      if (queue.length === 0) console.log("No open reports.");
      for (const item of queue) {
        const reasons = item.reports.map((report) => report.reason).join(", ");
        console.log(
          `${item.reviewId}  ${item.subjectName} (${item.subjectPath})  since ${item.firstReceived}: ${reasons}`,
        );
      }
      break;
    }
    case "remove":
    case "keep":
    case "restore": {
      const [reviewId, ...rest] = args;
      const reason = command === "remove" ? rest.shift() : undefined;
      if (!reviewId) fail(`${command} needs a review id.`);
      if (command === "remove" && !isReportReason(reason)) fail(`Unknown reason "${reason ?? ""}".`);
      const parsed = decisionSchema.safeParse({ action: command, reason: reason ?? null, statement: rest.join(" ") });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => issue.message).join(" "));
      const decision = await decide(db, reviewId, parsed.data, operator);
      console.log(`Decision ${decision.id}: ${command} ${reviewId}.`);
      break;
    }
    case "alerts": {
      const alerts = await openAlerts(db);
      if (alerts.length === 0) console.log("No open alerts.");
      for (const alert of alerts) {
        console.log(`${alert.alertId}  ${alert.subjectName} (${alert.subjectPath})  ${alert.signal}: ${alert.detail}`);
      }
      break;
    }
    case "release": {
      const [alertId, ...rest] = args;
      if (!alertId || !/^\d+$/.test(alertId)) fail("release needs an alert number.");
      const parsed = releaseSchema.safeParse({ statement: rest.join(" ") });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => issue.message).join(" "));
      await releaseAlert(db, Number(alertId), parsed.data.statement, operator);
      console.log(`Alert ${alertId} released.`);
      break;
    }
    case "scan": {
      const result = await scanForManipulation(db, publicationSettings());
      console.log(
        result
          ? `Scanned ${result.scanned} subjects; ${result.raised} alerts raised.`
          : "Today's scan has run already (or another process is running it).",
      );
      break;
    }
    case "peers": {
      const result = await rankAllPeers(db);
      console.log(`Ranked ${result.subjects} subjects in ${result.groups} groups.`);
      break;
    }
    case "set-aside": {
      const [action] = args;
      if (action === "retry") {
        console.log(`${await retrySetAside(db)} set-aside reviews will be tried again with the next batch.`);
        break;
      }
      if (action === "forget") {
        console.log(`${await forgetUnopenable(db)} set-aside reviews that no key opens were deleted.`);
        break;
      }
      if (action !== undefined) fail(`Unknown set-aside action "${action}".`);
      const reasons = await setAsideReasons(db);
      if (reasons.length === 0) console.log("No queued review is set aside.");
      for (const { reason, count } of reasons) console.log(`${count}  ${reason}`);
      break;
    }
    default:
      fail(`Unknown command "${command}".`);
  }
  // A decision may have changed public pages: the running servers' page caches let go of them.
  await announceChange(handle, env().REDIS_URL);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await handle.close();
}
