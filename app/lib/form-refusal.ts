/** Correct the highlighted fields: the form's message box when one or more fields are refused. */
export const correctFields = "Some answers need your attention: see the highlighted fields.";

/**
 * How a refused field is marked: its own message beside it, or `true` when the form's message box says the message
 * (a single refusal), so that the page says it once, in one place a reader and a screen reader find it.
 */
export type FieldProblem = string | true;

/**
 * A refusal as a form shows it, from the refused fields (the JSON API's `errors`, the server's parsed form). A single
 * refused field: its message in the message box, the field marked. Several: `correctFields` in the box and each
 * field's first message beside it. Client-safe: the manager review page reads the JSON API's refusals with it.
 */
export function formRefusal(errors: { field: string; message: string }[]): {
  formError: string;
  fieldErrors: Record<string, FieldProblem>;
} {
  const messages: Record<string, string> = {};
  for (const { field, message } of errors) messages[field.split(".")[0] || "form"] ??= message;
  const fields = Object.keys(messages);
  if (fields.length === 1) return { formError: messages[fields[0]!]!, fieldErrors: markedFields(messages) };
  return { formError: correctFields, fieldErrors: messages };
}

/** The refused fields marked, for a form whose message box says their messages. */
export function markedFields(messages: Record<string, string>): Record<string, FieldProblem> {
  return Object.fromEntries(Object.keys(messages).map((field) => [field, true]));
}
