/**
 * Why an address is not public (`details.reason` of URL_BLOCKED for an address, given or resolved): the range it
 * falls in, as src/net/ip-address.ts names them.
 */
const BLOCKED_ADDRESS_REASONS = {
  'this-network': 'A 0.0.0.0/8 address.',
  private: 'A private address (10/8, 172.16/12, 192.168/16).',
  'shared-address-space': 'Carrier-grade NAT space (100.64.0.0/10).',
  loopback:
    'This machine: a loopback address (127/8, ::1) or a local host name (`localhost`, `*.localhost`).',
  'cloud-metadata': 'The cloud metadata service (169.254.169.254).',
  'link-local': 'A link-local address (169.254/16, fe80::/10).',
  'ietf-protocol-assignments': 'IETF protocol assignments (192.0.0.0/24).',
  documentation: 'A documentation range (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20).',
  '6to4-relay-anycast': 'The 6to4 relay anycast range (192.88.99.0/24).',
  benchmarking: 'A benchmarking range (198.18/15, 2001:2::/48).',
  multicast: 'A multicast address (224/4, ff00::/8).',
  broadcast: 'The broadcast address (255.255.255.255).',
  reserved: 'A reserved range (240/4, or IPv6 outside 2000::/3).',
  unspecified: 'The unspecified address (::).',
  'ipv4-compatible': 'A deprecated IPv4-compatible IPv6 address (::/96).',
  'nat64-local-use': 'Local-use NAT64 (64:ff9b:1::/48).',
  'discard-only': 'The discard-only range (100::/64).',
  teredo: 'Teredo (2001::/32), refused as a whole.',
  orchid: 'ORCHID (2001:10::/28, 2001:20::/28).',
  'srv6-sid': 'SRv6 SIDs (5f00::/16).',
  'unique-local': 'A unique-local IPv6 address (fc00::/7).',
  'site-local': 'A deprecated site-local IPv6 address (fec0::/10).',
  scoped: 'An IPv6 address with a zone id (`%eth0`).',
} as const;

export type BlockedAddressReason = keyof typeof BLOCKED_ADDRESS_REASONS;

/** Stores (rate limits, credits, repeat checks, cache) fail closed on it: the store itself is not usable. */
const STORE_UNAVAILABLE = {
  'store-unavailable':
    'The state store (SQLite file, Redis) is not usable; the call was refused, not run unchecked.',
} as const;

/** The site could not give its robots.txt: the call fails with that failure (the page was not fetched). */
const ROBOTS_UNREACHABLE = {
  'robots-unreachable': "The site's robots.txt could not be read, so the page was not fetched.",
} as const;

/**
 * Every `details.reason` an error of each code may carry, and what it means. Reasons are public API like the codes:
 * kebab-case, listed here before they are used (`ReasonsByCode` in errors.ts is built from this table, so the
 * compiler refuses any other), documented in docs/errors.md (generated from it: scripts/errors-reference.ts).
 */
export const ERROR_REASONS = {
  INVALID_INPUT: {
    'invalid-url': 'The text is not an absolute http(s) URL.',
    'invalid-header': 'A request header name or value is not valid HTTP.',
    'invalid-method': 'The HTTP method is not one the client sends.',
    'invalid-limit': 'A per-call network limit is out of range (`details.limit` names it).',
    'credentials-in-url':
      'The URL carries a user name or password (`user:password@`): refused before any back-end, whatever fetch.chain holds; call again without them.',
    'query-too-long':
      "The query is over the provider's length limit (`details.maxCharacters`, `details.maxWords`).",
    'unsupported-parameter':
      'The provider cannot take a parameter the call needs (`topic: news` of a provider without news search): it is skipped and the next one asked, or, asked alone, refused.',
  },
  CONFIG_INVALID: {
    'invalid-limit': 'A `network` limit in the config is out of range (`details.limit` names it).',
    'invalid-proxy': '`network.proxy` is not a usable proxy URL.',
    'invalid-dns-server':
      '`network.dnsServer` (`--dns-server`) is not an IP address with an optional port: a host name cannot be used.',
    'invalid-allow-list-entry':
      '`network.allowPrivateNetwork` holds an entry that is neither a CIDR nor a host.',
    'invalid-base-url': "A provider's `baseUrl` is not an http(s) URL.",
    ...STORE_UNAVAILABLE,
  },
  NOT_CONFIGURED: {
    'missing-key': 'The provider needs an API key and none is set.',
    'missing-cx': 'Google CSE needs its search engine id (`cx`).',
    'missing-base-url': 'SearXNG needs the `baseUrl` of an instance.',
    'missing-playwright': 'The browser back-end needs the `playwright-core` package.',
    'missing-browser': 'The browser back-end found no Chromium to launch.',
    'no-usable-backend': 'No back-end in fetch.chain could take this URL (each attempt says why).',
    'not-cached':
      'verifyCitation with `cacheOnly` (as `periscope ask` checks its citations): the page is not in the document cache, and the check was not to fetch it.',
    ...STORE_UNAVAILABLE,
  },
  URL_BLOCKED: {
    scheme: 'The scheme is not http or https.',
    'invalid-answer': 'The host name resolved to something that is not an IP address.',
    'internal-address':
      'An internal address may only be fetched from here, and fetch.chain has no back-end that could.',
    'credentials-in-url':
      'A URL carrying credentials is never sent to a reader service, and fetch.chain has no back-end that could fetch it.',
    ...BLOCKED_ADDRESS_REASONS,
  },
  ROBOTS_DISALLOWED: {
    'robots-disallowed': "The site's robots.txt disallows this path for Periscope's user agent.",
    'robots-unreadable':
      "The site's robots.txt could not be used (too large, refused, not text): RFC 9309 counts that as disallow.",
  },
  HTTP_STATUS: {
    'invalid-key': 'The provider refused the API key (whatever status it used for it); not retryable.',
    'unexpected-response': 'A 2xx answer that cannot be used (an error inside a 200, a missing field).',
    'malformed-json': 'The answer was not valid JSON.',
    'unexpected-shape': 'The answer was JSON of an unexpected shape.',
    'malformed-response': 'The model endpoint sent an answer that is not a chat completion.',
    'reader-failed': 'The reader service answered but could not read the page.',
    'origin-status':
      'The reader service reached the page, which answered with an error status (`details.status`).',
    'redirect-loop': 'The redirects went round in a loop (`details.redirects`).',
    'too-many-redirects': 'More redirects than `maxRedirects` allows.',
    ...ROBOTS_UNREACHABLE,
  },
  NETWORK: {
    'dns-not-found': 'The host name does not exist (NXDOMAIN); not retryable.',
    'dns-no-address': 'The host name has no A or AAAA records; not retryable.',
    'dns-failure': 'The resolver failed (timeout, refused, server failure); retryable.',
    connect: 'The connection could not be made (`details.errorCode`).',
    proxy: 'The proxy could not be reached or refused the tunnel.',
    headers: 'The connection failed before the response headers arrived.',
    body: 'The connection closed before the body was complete.',
    'launch-failed': 'Chromium could not be launched.',
    'page-failed': 'The browser page crashed or could not be opened.',
    'browser-failed': 'The browser failed to load the page.',
    ...STORE_UNAVAILABLE,
    ...ROBOTS_UNREACHABLE,
  },
  TIMEOUT: {
    ...STORE_UNAVAILABLE,
    ...ROBOTS_UNREACHABLE,
  },
  BODY_TOO_LARGE: {
    'header-bytes': 'The response headers are larger than `maxHeaderBytes`.',
    'wire-bytes': 'The body, as sent, is larger than `maxBytes`.',
    'decoded-bytes': 'The body, once decompressed, is larger than `maxBytes`.',
    'declared-length': 'The server declared a body (content-length) larger than `maxBytes`.',
    'pdf-bytes': 'The PDF is larger than its limit (`details.limit`), so it was not read.',
  },
  UNSUPPORTED_CONTENT: {
    'content-decoding': 'The body could not be decompressed as its content-encoding says.',
    'pdf-encrypted': 'The PDF is encrypted with a password.',
    'pdf-damaged': 'The PDF is damaged or truncated.',
    'pdf-unreadable': 'The PDF could not be read (the message says why).',
    'image-damaged': 'The image is damaged or truncated (the message says how).',
  },
  EMPTY_CONTENT: {
    'javascript-shell':
      'The page is a JavaScript shell: it needs a browser back-end (the fetch chain escalates on it). With no usable browser in `fetch.chain`, `details.browser` is `not-in-chain` (the message says to add it; the CLI, `--browser`) or `unavailable` (the message says why).',
    'reader-empty': 'The reader service returned no text for the page.',
  },
  BLOCKED_BY_SITE: {
    challenge: 'A bot challenge or CAPTCHA page (`details.vendor` when known).',
    status: 'DuckDuckGo answered with a status it uses to turn automated queries away (202, 403…).',
    'unrecognised-page': 'DuckDuckGo answered with a page that is neither results nor a known block.',
    'no-vqd': "DuckDuckGo's page had no vqd token, so image search could not go on.",
    'engines-unresponsive': "Every one of SearXNG's upstream engines failed (`details.engines`).",
  },
  RATE_LIMITED: {
    'rate-limited': 'The provider rate-limited the call (429); `retryAfterMs` when it said.',
    quota: "The provider's plan quota or credits are used up (decision 4): it is cooled down for long.",
    queue: 'Pacing: the provider’s next turn comes after the deadline, so it was skipped, not asked.',
    'agent-rate-limit': 'The agent is over `limits.rate` (`details.limit` names the window).',
    overloaded: 'The gateway is at capacity (`gateway.maxQueuedCalls`); retry after a second.',
  },
  CREDITS_EXHAUSTED: {
    'agent-credits': "The agent's credits are used up (`details.balance`, `details.cost`).",
  },
  REPEATED_LOOKUP: {
    'repeated-lookup': 'The same lookup was repeated more than `limits.repeatLookups` allows.',
  },
  ALL_FAILED: {},
  ABORTED: {
    aborted: 'The caller cancelled the call.',
    'shutting-down': 'The gateway is shutting down and did not start the call; retry it on another instance.',
  },
  INTERNAL: {},
  POLICY_DENIED: {
    domain:
      'The egress domain policy (`egress.domains`, the API key, the call) does not let the call reach this domain; no request was sent.',
    'not-seen':
      'The seen-URL rule (`egress.seenUrlsOnly`): the URL did not come from the task (a search result, a link of a page read, the task input).',
    secret:
      'The query or URL carries what looks like a secret (a credential format, a known secret value), as it is or base64-, base64url- or hex-encoded (`details.encoding`); it was not sent, and the error does not quote it.',
    budget: "The session's budget (`limits.session`: calls per tool, credits) is used up.",
    hook: "A person or program in the loop refused the call: the library's `beforeCall` hook or the `egress.beforeCallWebhook` (or it failed, and its `onFailure` is deny); the message gives the reason.",
  },
} as const;
