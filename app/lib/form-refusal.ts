/** Correct the highlighted fields: the form's message box when one or more fields are refused. */
export const correctFields = "Some answers need your attention: see the highlighted fields.";

/**
 * A refusal as a form shows it, from the refused fields (the JSON API's `errors`, the server's parsed form): each
 * field's first message beside it, and in the message box the message itself when there is one, else
 * `correctFields`. Client-safe: the manager review page reads the JSON API's refusals with it.
 */
export function formRefusal(errors: { field: string; message: string }[]): {
  formError: string;
  fieldErrors: Record<string, string>;
} {
  const fieldErrors: Record<string, string> = {};
  for (const { field, message } of errors) fieldErrors[field.split(".")[0] || "form"] ??= message;
  const messages = Object.values(fieldErrors);
  return { formError: messages.length === 1 ? messages[0]! : correctFields, fieldErrors };
}
