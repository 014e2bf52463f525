/**
 * Query parameter names whose values are credentials: API keys and tokens, OAuth codes and tokens, session ids,
 * passwords, and the signatures of pre-signed URLs (AWS `X-Amz-*`, Google `X-Goog-*`, Azure SAS `sig`, CloudFront
 * `Signature`/`Key-Pair-Id`). Generous on purpose: a false positive only keeps the URL away from
 * third-party readers, a false negative hands a secret to one.
 */
const CREDENTIAL_PARAMETER =
  /^(?:(?:[a-z]+[-_])?(?:api[-_]?)?key|apikey|(?:[a-z]+[-_])?token|auth|authorization|(?:client[-_])?secret|password|passwd|pwd|pass|sig|signature|hmac|x-amz-.+|x-goog-.+|key-pair-id|session|sessionid|session[-_]id|sid|jwt|code|otp|ticket|credential|credentials|assertion|saml(?:request|response))$/i;

/** A value that is a JSON Web Token, whatever its parameter is called. */
const JWT = /^eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*$/;

/**
 * Why this URL must not be handed to a third-party reader, or undefined when it may: userinfo
 * (`https://user:pass@host/`), or a query parameter that carries a credential (`token`, `key`, `sig`, `signature`,
 * `X-Amz-*`, `access_token`, …) or a JWT. Tokens inside the path cannot be recognised and are not caught.
 */
export function credentialReason(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '') return 'the URL carries a user name or password';
  const names = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMETER.test(name) || JWT.test(value)) names.add(name);
  }
  if (names.size === 0) return undefined;
  const listed = [...names].slice(0, 3).join(', ');
  return `the URL carries credential-like query parameters (${listed})`;
}
