// A page action reads its form with readForm (app/http/forms.server.ts), which answers a body that is no form with a
// 400; `request.formData()` itself throws on one, and the action then fails with a 500.

/** `no-restricted-syntax` entries for app/routes/: no `<anything>.formData()` called on a request. */
export const readFormRequired = [
  {
    selector: "CallExpression[callee.property.name='formData'][callee.object.name=/^(request|req)$/]",
    message: "Read a page action's form with readForm(request) from app/http/forms.server.ts.",
  },
];
