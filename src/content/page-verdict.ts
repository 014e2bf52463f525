import { PeriscopeError } from '../errors.ts';
import { isRetryableStatus } from '../net/http-status.ts';
import { type DomElement, type DomNode, type DomText, ELEMENT_NODE, TEXT_NODE } from './html/dom.ts';
import type { LightElement } from './html/light-dom.ts';
import { parseDocument } from './html/parse-document.ts';

/** Below this many characters of extracted text, a page with the marks of a JavaScript app is a shell. */
export const SHELL_MAX_CHARS = 200;
/** Below this many characters, a page titled like an error or a challenge is one (real articles are longer). */
export const NOTICE_MAX_CHARS = 1000;

export interface PageVerdictInput {
  /** The page's HTML source. */
  html: string;
  /** The text extracted from it (Markdown or plain). */
  text: string;
  /** The title the extractor found. */
  title?: string | undefined;
  url: string;
}

/**
 * Whether an HTTP 200 page is something other than content: a bot challenge (`BLOCKED_BY_SITE`), an error
 * page (`HTTP_STATUS`, `soft: true`, the status read from its heading) or a JavaScript application shell
 * (`EMPTY_CONTENT`). Only pages with little text are judged, and only on their title and headings or on
 * vendor markers, so an article that mentions "404" or "captcha" is never one.
 */
export function judgePage(input: PageVerdictInput): PeriscopeError | undefined {
  // Markdown carries link targets, so the raw text may be a few times its readable length, not more.
  if (input.text.length > NOTICE_MAX_CHARS * 20) return undefined;
  const chars = readableChars(input.text);
  if (chars >= NOTICE_MAX_CHARS) return undefined;
  const headings = headingsOf(input.html, input.title);
  return (
    challengeVerdict(input, chars, headings) ??
    errorPageVerdict(input, headings) ??
    (chars < SHELL_MAX_CHARS ? shellVerdict(input, chars) : undefined)
  );
}

/** Characters a reader would read: Markdown link targets and markup left out, whitespace collapsed. */
function readableChars(text: string): number {
  return text
    .replace(/!?\[([^\]\n]{0,500})\]\([^)\s]{0,2000}\)/g, '$1')
    .replace(/[#>*_`|~-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim().length;
}

/** The `<title>`, the extractor's title and the first `<h1>`s, as plain text. */
function headingsOf(html: string, title: string | undefined): string[] {
  const found = title ? [title] : [];
  const titleTag = /<title[^>]*>([\s\S]{0,500}?)<\/title>/i.exec(html);
  if (titleTag?.[1]) found.push(titleTag[1]);
  const h1 = /<h1[^>]*>([\s\S]{0,500}?)<\/h1>/gi;
  for (let index = 0, match = h1.exec(html); match && index < 3; index++, match = h1.exec(html)) {
    found.push(match[1] ?? '');
  }
  return found.map(plainHeading).filter((heading) => heading !== '');
}

function plainHeading(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&#0*39;|&apos;|&rsquo;|&#8217;/gi, "'")
    .replace(/&hellip;|&#8230;/gi, '...')
    .replace(/\s+/g, ' ')
    .trim();
}

// Challenges.

/**
 * Vendor markers found only on challenge and block pages (not the sensor scripts these vendors put on
 * every page they protect), each with the vendor it names.
 */
const CHALLENGE_MARKERS: Array<[RegExp, string]> = [
  [
    /cf[-_]chl[-_]|cf-challenge|cf-browser-verification|challenge-platform\/(?:h\/[a-z]\/)?orchestrate|id=["']challenge-(?:form|running|stage)["']/i,
    'Cloudflare',
  ],
  [/captcha-delivery\.com/i, 'DataDome'],
  [/px-captcha|captcha\.px-cdn\.net/i, 'PerimeterX'],
  [/Incapsula incident ID|_Incapsula_Resource\?SWUDNSAI/i, 'Imperva'],
  [/gokuProps|captcha\.awswaf\.com/i, 'AWS WAF'],
  [/check\.ddos-guard\.net/i, 'DDoS-Guard'],
  [/sucuri_cloudproxy_js|Sucuri WebSite Firewall/i, 'Sucuri'],
  [/errors\.edgesuite\.net|Reference&#32;&#35;\d/i, 'Akamai'],
];

const CHALLENGE_TITLES =
  /^(?:just a moment\.*|attention required!? \| cloudflare|please wait\.* \| cloudflare|one more step|checking your browser.*|ddos-guard|ddos protection by .*|access denied \| .* used cloudflare to restrict access|vercel security checkpoint|security check(?:point)?|human verification|verifying you are human.*|are you a (?:robot|human)\??|robot check|captcha(?: challenge)?|pardon our interruption\.*|(?:sorry, )?you have been blocked|request unsuccessful\..*)$/i;

const CHALLENGE_PHRASES =
  /verify(?:ing)? (?:that )?you(?: are|'re) (?:a )?human|are you a robot|i'?m not a robot|unusual traffic from your (?:computer|network)|checking (?:if the site connection is secure|your browser)|enable javascript and cookies to continue|press (?:&|and) hold|prove you(?: are|'re) (?:a )?human|needs to review the security of your connection/i;

const CAPTCHA_WIDGET =
  /\b(?:g-recaptcha|h-captcha|cf-turnstile)\b|recaptcha\/api\.js|hcaptcha\.com\/1\/api\.js|turnstile\/v0\/api\.js/i;

function challengeVerdict(
  input: PageVerdictInput,
  chars: number,
  headings: string[],
): PeriscopeError | undefined {
  const vendor = CHALLENGE_MARKERS.find(([marker]) => marker.test(input.html))?.[1];
  const titled = headings.some((heading) => CHALLENGE_TITLES.test(heading));
  const phrased = CHALLENGE_PHRASES.test(input.text) || CHALLENGE_PHRASES.test(headings.join('\n'));
  const widget = CAPTCHA_WIDGET.test(input.html);
  // A captcha widget on a page that asks to prove humanity and has nothing else to read.
  const captchaOnly = widget && phrased;
  if (!vendor && !titled && !captchaOnly && !(phrased && chars < SHELL_MAX_CHARS * 2)) return undefined;
  const who = vendor ?? (/cloudflare/i.test(headings.join(' ')) ? 'Cloudflare' : undefined);
  return new PeriscopeError(
    'BLOCKED_BY_SITE',
    `${input.url} answered with a ${who ? `${who} ` : ''}bot challenge (CAPTCHA or browser check) instead of the page`,
    { details: { url: input.url, reason: 'challenge', ...(who ? { vendor: who } : {}) } },
  );
}

// Error pages.

const SEGMENT_SEPARATORS = /\s+[|–—·•-]+\s+|\s*(?:\||::|–|—)\s*/;
const LEADING_NOISE = /^(?:oops!?|sorry[,!]?|whoops!?|uh oh!?|error:?|http)\s*/;

/** Heading texts of error pages, each with the status it stands for. */
const ERROR_HEADINGS: Array<[RegExp, number]> = [
  [
    /^(?:404(?: error)?|error 404|(?:404 )?(?:page|file|document|resource) not found|(?:404 )?not found|this page (?:could ?not|can't|cannot) be found\.?|the page you (?:requested|are looking for|were looking for) (?:was not|could not be|cannot be|can't be) found\.?|(?:that|this) page (?:does not|doesn't) exist\.?|page (?:does not|doesn't) exist|seite nicht gefunden|página no encontrada|page (?:non trouvée|introuvable)|pagina non trovata|ページが見つかりません)$/,
    404,
  ],
  [/^(?:410(?: gone)?|error 410)$/, 410],
  [/^(?:403(?: forbidden)?|error 403|forbidden|access (?:denied|forbidden)|403 access denied)$/, 403],
  [/^(?:401(?: unauthorized| authorization required)?|error 401|unauthorized)$/, 401],
  [/^(?:500(?: internal server error)?|error 500|internal server error)$/, 500],
  [/^(?:502(?: bad gateway)?|error 502|bad gateway)$/, 502],
  [/^(?:503(?: service (?:temporarily )?unavailable)?|error 503|service (?:temporarily )?unavailable)$/, 503],
  [/^(?:504(?: gateway time-?out)?|error 504|gateway time-?out)$/, 504],
];

/**
 * The message names the error phrase the page matched (`"404 not found"`), never the page's own title or heading:
 * an error message is shown to the model outside the untrusted envelope, and the matched phrase comes from the
 * fixed list above, so no page-written text goes with it.
 */
function errorPageVerdict(input: PageVerdictInput, headings: string[]): PeriscopeError | undefined {
  for (const heading of headings) {
    const matched = errorStatus(heading.toLowerCase());
    if (matched === undefined) continue;
    const { status, phrase } = matched;
    return new PeriscopeError(
      'HTTP_STATUS',
      `${input.url} answered 200, but the page is a ${status} error page (its title or heading says "${phrase}")`,
      { retryable: isRetryableStatus(status), details: { url: input.url, status, soft: true } },
    );
  }
  return undefined;
}

/**
 * The status a heading announces, reading it whole or by its parts (`Page not found | Example`), with the part
 * that matched: a phrase of `ERROR_HEADINGS`, so one the page cannot choose freely.
 */
function errorStatus(heading: string): { status: number; phrase: string } | undefined {
  const candidates = [heading, ...heading.split(SEGMENT_SEPARATORS)];
  for (const candidate of candidates) {
    const cleaned = candidate
      .replace(LEADING_NOISE, '')
      .replace(/[\s.!]+$/, '')
      .trim();
    for (const [pattern, status] of ERROR_HEADINGS)
      if (pattern.test(cleaned)) return { status, phrase: cleaned };
  }
  // "404 - Page not found": a bare code followed by its phrase.
  const code = /^(?:error )?(40[0-9]|41[0-9]|5\d\d)\b/.exec(heading)?.[1];
  if (!code) return undefined;
  const rest = errorStatus(heading.slice(heading.indexOf(code) + 3).replace(/^[\s|:–—-]+/, ''));
  return rest ? { status: Number(code), phrase: `${code} ${rest.phrase}` } : undefined;
}

// JavaScript shells.

/** Where single-page apps mount (React, Next.js, Nuxt, Vue, Gatsby, Svelte, Angular, Ember, Quasar). */
/** Where client-side frameworks mount their application: ids, marker attributes, an Angular root element. */
const MOUNT_IDS = new Set([
  'root',
  'app',
  '__next',
  '__nuxt',
  '___gatsby',
  'svelte',
  'q-app',
  'react-root',
  'vue-app',
  'main-app',
]);

function isMount(element: LightElement): boolean {
  const id = element.getAttribute('id');
  return (
    (id !== null && (MOUNT_IDS.has(id) || id.startsWith('ember'))) ||
    element.hasAttribute('data-reactroot') ||
    element.hasAttribute('ng-app') ||
    element.localName === 'app-root'
  );
}
/** A mount element with no more text than this ("Loading…") has not been rendered. */
const EMPTY_MOUNT_CHARS = 30;
const BUNDLE_SCRIPT = /<script\b[^>]*\b(?:src=|type=["']?module)|<script\b[^>]*>[^<]{2000}/i;
const NOSCRIPT_JAVASCRIPT =
  /<noscript\b[^>]*>[\s\S]{0,600}?\b(?:enable|turn on|activate|requires?|need|needs|switch on|allow)\b[\s\S]{0,80}?\bjava-?script\b/i;
const LOADING_TEXT = /^\W*(?:loading|please wait|cargando|chargement|wird geladen|laden)\b/i;

/**
 * What a script does when it builds the page itself: puts markup or text into the document. Loading another script
 * (`createElement('script')` and `insertBefore`/`appendChild`, the analytics and tag-manager snippets) is not it.
 */
const DOM_WRITE =
  /\.(?:innerHTML|outerHTML|textContent|innerText)\s*\+?=(?!=)|\.insertAdjacentHTML\s*\(|\bdocument\.write(?:ln)?\s*\(|\.replaceChildren\s*\(|\bcreateTextNode\s*\(/;
const SCRIPT_ELEMENT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const SCRIPT_TYPE = /\btype\s*=\s*["']?([^"'\s>]*)/i;
const JAVASCRIPT_TYPE = /^(?:|module|(?:text|application)\/(?:x-)?(?:java|ecma)script)$/i;

/** A script of the page's own (no `src`, JavaScript, not data such as JSON) that writes the document. */
function hasDomWritingScript(html: string): boolean {
  for (const [, attributes = '', body = ''] of html.matchAll(SCRIPT_ELEMENT)) {
    if (/\bsrc\s*=/i.test(attributes)) continue;
    if (!JAVASCRIPT_TYPE.test(SCRIPT_TYPE.exec(attributes)?.[1] ?? '')) continue;
    if (DOM_WRITE.test(body)) return true;
  }
  return false;
}

/**
 * A page with little text, built by script — a bundle, or a script of its own that writes the document — and
 * showing a sign that it has not been rendered (an empty mount element, a <noscript> asking for JavaScript,
 * loading text, or no text at all). A page whose scripts only load others (analytics) is not one.
 */
function shellVerdict(input: PageVerdictInput, chars: number): PeriscopeError | undefined {
  if (!BUNDLE_SCRIPT.test(input.html) && !hasDomWritingScript(input.html)) return undefined;
  const signs = [
    hasEmptyMount(input.html) && 'empty mount element',
    NOSCRIPT_JAVASCRIPT.test(input.html) && '<noscript> asking for JavaScript',
    LOADING_TEXT.test(input.text.trim()) && 'loading text',
    chars === 0 && 'no text at all',
  ].filter((sign): sign is string => typeof sign === 'string');
  if (signs.length === 0) return undefined;
  return new PeriscopeError(
    'EMPTY_CONTENT',
    `${input.url} is a JavaScript application shell (${signs.join(', ')}) with ${chars} characters of text; it needs a browser back-end to render`,
    { details: { url: input.url, reason: 'javascript-shell', next: 'needs a browser back-end', signs } },
  );
}

function hasEmptyMount(html: string): boolean {
  if (
    !/\b(?:id=["']?(?:root|app|__|svelte|q-app|react-root|vue-app|main-app|ember)|data-reactroot|ng-app)|<app-root\b/i.test(
      html,
    )
  ) {
    return false;
  }
  for (const element of parseDocument(html).getElementsByTagName('*')) {
    if (isMount(element) && visibleText(element).length <= EMPTY_MOUNT_CHARS) return true;
  }
  return false;
}

/** Text of a subtree without scripts, styles and templates, whitespace collapsed. */
function visibleText(root: DomElement): string {
  const parts: string[] = [];
  const pending: DomNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as DomNode;
    if (node.nodeType === TEXT_NODE) parts.push((node as DomText).data);
    else if (node.nodeType === ELEMENT_NODE && !/^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName)) {
      pending.push(...[...node.childNodes].reverse());
    }
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}
