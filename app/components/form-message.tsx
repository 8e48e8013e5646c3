/** The message box's id: a field refused for the reason the box says is described by the box. */
export const formMessageId = "form-message";

/** The form's message box: errors are announced to screen readers as they appear. */
export function FormMessage({ error, success }: { error?: string | undefined; success?: string | undefined }) {
  if (error) {
    return (
      <div id={formMessageId} className="message-box error" role="alert">
        {error}
      </div>
    );
  }
  if (success) {
    return (
      <div className="message-box success" role="status">
        {success}
      </div>
    );
  }
  return null;
}
