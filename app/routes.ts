import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/search.tsx", { id: "home" }),
  route("search", "routes/search.tsx", { id: "search" }),
  route("landing", "routes/landing.tsx"),
  route("company/:companyId", "routes/company.tsx"),
  route("managers", "routes/managers.tsx"),
  route("manager-profile/:managerId", "routes/manager-profile.tsx"),
  route("guidelines", "routes/guidelines.tsx"),
  route("privacy", "routes/privacy.tsx"),
  route("signin", "routes/signin.tsx"),
  route("signup", "routes/signup.tsx"),
  route("signout", "routes/signout.tsx"),
  route("two-factor", "routes/two-factor.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("reset-password", "routes/reset-password.tsx"),
  route("verify-email", "routes/verify-email.tsx"),
  route("account", "routes/account.tsx"),
  route("api/v1/auth/token", "routes/api/v1/auth-token.ts"),
  route("api/v1/auth/revoke", "routes/api/v1/auth-revoke.ts"),
  route("api/v1/auth/user", "routes/api/v1/auth-user.ts"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
