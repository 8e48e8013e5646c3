// An UPDATE or DELETE without WHERE is almost always a bug (like create-t3-app's Drizzle rule). Kysely runs a query
// with execute(), executeTakeFirst() or executeTakeFirstOrThrow(), the last two being the form most UPDATEs here
// take; a returning(...) may sit between the query and its execution.
const run = "CallExpression[callee.property.name=/^execute(TakeFirst(OrThrow)?)?$/] > MemberExpression";
const returning = "CallExpression[callee.property.name=/^returning(All)?$/] > MemberExpression";

/** `no-restricted-syntax` entries: a set(...) or deleteFrom(...) run as it is, with no where(...) after it. */
export const whereRequired = [
  {
    selector: `${run} > CallExpression[callee.property.name='set']`,
    message: "updateTable(...).set(...) needs a .where(...) before it is executed.",
  },
  {
    selector: `${run} > ${returning} > CallExpression[callee.property.name='set']`,
    message: "updateTable(...).set(...) needs a .where(...) before it is executed.",
  },
  {
    selector: `${run} > CallExpression[callee.property.name='deleteFrom']`,
    message: "deleteFrom(...) needs a .where(...) before it is executed.",
  },
  {
    selector: `${run} > ${returning} > CallExpression[callee.property.name='deleteFrom']`,
    message: "deleteFrom(...) needs a .where(...) before it is executed.",
  },
];
