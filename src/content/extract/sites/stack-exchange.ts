import type { LightElement } from '../../html/light-dom.ts';
import type { Extractor } from '../types.ts';
import {
  enough,
  findAll,
  findFirst,
  hasClass,
  hostOf,
  pageSignals,
  SiteRemovals,
  selection,
  squash,
} from './site-dom.ts';

/** Stack Exchange network hosts that are not `*.stackexchange.com` or `*.stackoverflow.com`. */
const HOSTS = new Set([
  'stackoverflow.com',
  'superuser.com',
  'serverfault.com',
  'askubuntu.com',
  'mathoverflow.net',
  'stackapps.com',
]);

function isStackExchangeHost(host: string): boolean {
  return (
    HOSTS.has(host) ||
    host.endsWith('.stackexchange.com') ||
    host.endsWith('.stackoverflow.com') ||
    host.endsWith('.mathoverflow.net')
  );
}

const isPostBody = (element: LightElement) =>
  hasClass(element, 'js-post-body') || hasClass(element, 's-prose');

/**
 * Stack Exchange question pages (Stack Overflow, Super User, every `*.stackexchange.com` site): the
 * question's title and body, then each answer's body under a heading with its score, whether it is the
 * accepted one, and its author. Out: everything else (vote buttons, tags, signatures, comments, the
 * sidebar), since only the post bodies (`.js-post-body` / `.s-prose`) are taken.
 *
 * Detection: a Stack Exchange host, or the `question-page` class on `<body>` (the same software elsewhere).
 */
export const stackExchangeExtractor: Extractor = {
  id: 'stack-exchange',
  extract({ document, url }) {
    if (!pageSignals(document).rootClasses.has('question-page') && !isStackExchangeHost(hostOf(url))) {
      return undefined;
    }
    const body = document.body;
    const question = findFirst(
      body,
      (element) =>
        element.getAttribute('id') === 'question' ||
        (hasClass(element, 'question') && element.hasAttribute('data-questionid')),
    );
    const questionBody = question && findFirst(question, isPostBody);
    if (!questionBody) return undefined;
    const answers = findAll(body, (element) => hasClass(element, 'answer'))
      .map((answer) => ({ answer, body: findFirst(answer, isPostBody) }))
      .filter((entry): entry is { answer: LightElement; body: LightElement } => entry.body !== undefined);
    if (!enough([questionBody, ...answers.map((entry) => entry.body)])) return undefined;

    const header = findFirst(body, (element) => element.getAttribute('id') === 'question-header');
    const headline = (header && findFirst(header, (element) => element.localName === 'h1')) ?? undefined;
    const roots = [questionBody];
    for (const { answer, body: answerBody } of answers) {
      const heading = document.createElement('h2');
      heading.textContent = answerHeading(answer);
      roots.push(heading, answerBody);
    }
    const removals = new SiteRemovals('stack-exchange');
    // Inside the bodies only snippet controls can stand in the way of the text.
    removals.drop(roots, (element) => (element.localName === 'button' ? '<button>' : undefined));
    return selection('stack-exchange', roots, removals, headline ? squash(headline.textContent) : undefined);
  },
};

/** "Accepted answer (score 42) by Ada", "Answer (score -1)". */
function answerHeading(answer: LightElement): string {
  const accepted =
    hasClass(answer, 'accepted-answer') || answer.getAttribute('itemprop') === 'acceptedAnswer';
  let score = answer.getAttribute('data-score')?.trim();
  if (!score) {
    const count = findFirst(answer, (element) => hasClass(element, 'js-vote-count'));
    score = count ? (count.getAttribute('data-value') ?? squash(count.textContent)) : undefined;
  }
  const author = answerAuthor(answer);
  return `${accepted ? 'Accepted answer' : 'Answer'}${score ? ` (score ${score})` : ''}${author ? ` by ${author}` : ''}`;
}

function answerAuthor(answer: LightElement): string | undefined {
  const author = findFirst(answer, (element) => element.getAttribute('itemprop') === 'author');
  if (!author) return undefined;
  const name =
    findFirst(author, (element) => element.getAttribute('itemprop') === 'name') ??
    findFirst(author, (element) => element.localName === 'a');
  const text = squash((name ?? author).textContent);
  return text && text.length <= 60 ? text : undefined;
}
