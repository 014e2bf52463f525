import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHTML } from 'linkedom';
import { cpuTimeOf } from '../../testing/cpu-time.ts';
import { limitNesting } from './limit-nesting.ts';

interface Node {
  nodeType: number;
  firstChild: Node | null;
  nextSibling: Node | null;
}

/** Deepest element nesting of what linkedom (the parser the extractor uses) builds from `html`. */
function parsedDepth(html: string): number {
  const { document } = parseHTML(html) as unknown as { document: { childNodes: Node[] } };
  let deepest = 0;
  const pending: Array<[Node, number]> = [...document.childNodes]
    .filter((node) => node.nodeType === 1)
    .map((node): [Node, number] => [node, 1]);
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const [node, depth] = entry;
    deepest = Math.max(deepest, depth);
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1) pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

const ORDINARY = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>A <b>title</b> with tags</title>
<link rel="stylesheet" href="/s.css"><style>div > p { color: red } /* </div></div> */</style>
<script>if (a < b && c > d) document.write("<div><div><div>");</script></head>
<body class="x"><!-- <div><div><div><div> --><header><nav><ul><li><a href="/">Home</a><li><a href="/a?x=1&y=2">A</a></ul></nav></header>
<main><article><h1 title="a > b">Heading</h1><p>One<br>two<img src="x.png" alt='>'><p>Three
<table><tr><td>1<td>2<tr><td>3<td>4</table>
<svg viewBox="0 0 1 1"><path d="M0 0"/><circle r="1"/></svg>
<textarea><div><div><div></textarea><pre><code class="language-js">let x = 1 < 2;</code></pre>
</article></main><footer><p>Footer</footer></body></html>`;

test('ordinary HTML comes back unchanged, with its depth', () => {
  const result = limitNesting(ORDINARY, 512);
  assert.equal(result.html, ORDINARY);
  assert.equal(result.flattened, false);
  // html > body > main > article > table > tr > td, as the parser builds it.
  assert.equal(result.maxDepth, 7);
  assert.equal(parsedDepth(ORDINARY), 7);
  // A limit the page fits in exactly changes nothing either.
  assert.equal(limitNesting(ORDINARY, result.maxDepth).html, ORDINARY);
});

test('100 000 nested <div>s are flattened to the limit, quickly, and the text is kept', () => {
  const html = `<html><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}<p>after</p></body></html>`;
  const { result, cpuMs } = cpuTimeOf(() => limitNesting(html, 512));
  assert.ok(cpuMs < 2000, `took ${Math.round(cpuMs)} ms of CPU`);
  assert.equal(result.flattened, true);
  assert.equal(result.maxDepth, 100_002);
  assert.equal(result.html.match(/<div>/g)?.length, 510);
  assert.equal(result.html.match(/<\/div>/g)?.length, 510);
  assert.equal(parsedDepth(result.html), 512);
  const { document } = parseHTML(result.html);
  assert.equal(document.body?.textContent?.replace(/\s+/g, ' ').trim(), 'deep text after');
});

test('the end tags of dropped elements go too: the page after them keeps its structure', () => {
  const html = '<div><div><div><div>deep</div></div></div></div><p>after</p>';
  const result = limitNesting(html, 2);
  assert.equal(result.html, '<div><div>  deep  </div></div><p>after</p>');
  assert.equal(result.maxDepth, 4);
  assert.equal(parsedDepth(result.html), 2);
});

test('void elements, raw text, comments and implied end tags do not count as nesting', () => {
  const cases = [
    '<div><br><img src=a><input><hr><meta><link><wbr></div>',
    '<div><script>"<div><div><div>"</script><style>/*<div><div>*/</style></div>',
    '<div><title><div><div></title><textarea><div><div></textarea><xmp><div><div></xmp></div>',
    '<div><!-- <div><div><div> --><!----><!--><!---></div>',
    '<div><p>a<p>b<p>c<p>d</div>',
    '<ul><li>a<li>b<li>c<li>d</ul>',
    '<table><tr><td>a<td>b<tr><td>c</table>',
    '<div><![CDATA[ <div><div><div> ]]></div>',
    '<svg><path/><path/><g/></svg>',
  ];
  for (const html of cases) {
    const result = limitNesting(html, 3);
    assert.equal(result.html, html, html);
    assert.equal(result.flattened, false, html);
    assert.ok(parsedDepth(html) <= 4, html);
  }
});

test('a quoted ">" inside an attribute does not end the tag', () => {
  const html = '<div title="a > b"><div data-x=\'>\'><div alt = ">>">x</div></div></div>';
  assert.equal(limitNesting(html, 3).html, html);
  assert.equal(limitNesting(html, 2).html, '<div title="a > b"><div data-x=\'>\'> x </div></div>');
});

const times = (count: number, unit: string) => unit.repeat(count);

/** Markup that a scanner simpler than the parser misreads; each nests about 1 000 levels deep. */
const TRICKS: Record<string, string> = {
  'end tag with a slash (`</div/>` closes nothing)': times(50, times(20, '<div>') + times(20, '</div/>')),
  'end tag with a non-ASCII space': times(50, times(20, '<div>') + times(20, '</div\u00a0>')),
  'end tag with quotes (ends at the first >)': times(50, `${times(20, '<div>')}</p x="><div>">`),
  'short comment <!-->': `<!-->${times(1000, '<div>')}<!-- -->`,
  '<!> runs to the next >': times(50, times(20, '<div>') + times(20, '<!></div>')),
  'CDATA runs to ]]>': times(50, `${times(20, '<div>')}<![CDATA[ > ${times(20, '</div>')} ]]>`),
  'attribute name starting with =': `<span ="a>${times(1000, '<div>')}">`,
  'value after a non-ASCII space': `<span a=\u00a0"x>${times(1000, '<div>')}">`,
  '<script/> is not raw text': times(50, `<script/>${times(20, '<div>')}`),
  'raw text ends at </script followed by a space or > only': times(
    200,
    `${times(5, '<div>')}<script></script/>${times(5, '</div>')}</script>`,
  ),
  '<tmp> is raw text up to </xmp': times(200, `${times(5, '<div>')}<tmp>${times(5, '</div>')}</xmp>`),
  '<svg/> leaves SVG self-closing on': times(50, `<svg/>${times(20, '<div>')}</svg>`),
  'a=b/> in SVG is not self-closing': `<svg>${times(1000, '<g a=b/>')}`,
  '/> in foreignObject is not self-closing': `<svg><foreignObject>${times(1000, '<div/>')}`,
  'U+001C stands for < in raw text': times(50, `<style>\u001c/style>${times(20, '<div>')}`),
};

for (const [name, html] of Object.entries(TRICKS)) {
  test(`parser quirk: ${name}`, () => {
    assert.ok(parsedDepth(html) >= 900, `the trick nests (${parsedDepth(html)} levels)`);
    assert.ok(parsedDepth(limitNesting(html, 8).html) <= 9);
  });
}

test('fuzz: whatever the markup, the parsed tree is no deeper than the limit (plus void leaves)', () => {
  const pieces = [
    ...['<div>', '<div>', '<div>', '</div>', '</div/>', '</ div>', '</div\u00a0>', '<DIV>', '<div/>'],
    ...['<!-->', '<!--', '-->', '<!>', '<!->', '<![CDATA[', ']]>', '<?', '>', '<', '/', '"', "'", '='],
    ...['<script>', '<script/>', '</script>', '</script/>', '\u001c/script>', '<style>', '</style >'],
    ...['<title>', '</title>', '<tmp>', '</xmp>', '<textarea>', '</textarea>', '<svg>', '</svg>', '<svg/>'],
    ...['<math>', '</math>', '<foreignObject>', '</foreignObject>', '<desc>', '<g a=b/>', '<g/>'],
    ...['<a b="', '">', "<a b='", "'>", '<span ="', '\u00a0', '<x/ >', '<p>', '</p>', '<li>', '<br>'],
    ...['</br>', '<table>', '<tr>', '<td>', '<tbody>', '<option>', '<select>', '<h1>', '<ul>', 'text', ' '],
  ];
  let seed = 20_260_101;
  const random = (below: number) => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed % below;
  };
  for (let round = 0; round < 400; round++) {
    const html = Array.from({ length: 50 + random(250) }, () => pieces[random(pieces.length)]).join('');
    const limit = 1 + random(8);
    const depth = parsedDepth(limitNesting(html, limit).html);
    assert.ok(depth <= limit + 1, `limit ${limit}, depth ${depth}: ${JSON.stringify(html)}`);
  }
});

test('maxElements: past the cap, tags go and their text stays, so a million tiny elements stay cheap', () => {
  const html = `<div><p>one</p><p>two</p><script>var x = "<p>";</script><p>three <b>bold</b></p></div><p>four</p>`;
  const result = limitNesting(html, 512, { maxElements: 3 });
  assert.equal(result.flattened, true);
  assert.equal(result.html, '<div><p>one</p><p>two</p>  three  bold  </div> four ');
  assert.equal(limitNesting(html, 512, { maxElements: 100 }).html, html);

  const tiny = `<html><body>${'<p>x</p>'.repeat(200_000)}</body></html>`;
  const { result: document, cpuMs } = cpuTimeOf(
    () => parseHTML(limitNesting(tiny, 512, { maxElements: 1000 }).html).document,
  );
  assert.ok(cpuMs < 3000, `took ${Math.round(cpuMs)} ms of CPU`);
  assert.equal(document.querySelectorAll('*').length, 1000);
  assert.equal(document.body?.textContent?.replace(/\s+/g, ''), 'x'.repeat(200_000));
});
