// A page action reads its form with readForm (app/http/forms.server.ts), which answers a body that is no form with a
// 400; `request.formData()` itself throws on one, and the action then fails with a 500.

/**
 * `no-restricted-syntax` entries for app/routes/: no `.formData()` call at all, whatever holds the request
 * (`request`, `args.request`, a renamed parameter); a route has no other body to read a form from.
 */
export const readFormRequired = [
  {
    selector: "CallExpression[callee.property.name='formData']",
    message: "Read a page action's form with readForm(request) from app/http/forms.server.ts.",
  },
];
