// The token estimate against two real tokenizers (js-tiktoken, a devDependency): o200k_base and cl100k_base
// stand in for the models' own. For every kind of text a page can hold the estimate must not be below either
// count, and a window cut at a budget must fit the budget; English prose must not be wildly over-counted.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { paginate } from './paginate.ts';
import { estimateTokens, measureTokens } from './token-estimate.ts';

const tokenizers = { o200k: new Tiktoken(o200k), cl100k: new Tiktoken(cl100k) };
const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const hash = (algorithm: string, index: number, encoding: 'hex' | 'base64' | 'base64url') =>
  createHash(algorithm).update(String(index)).digest(encoding);
/** At least `length` characters of `text`, repeated. */
const atLeast = (text: string, length = 6000) => text.repeat(Math.ceil(length / text.length));

const ENGLISH = `The harbour at the mouth of the river has been in use since the thirteenth century, when fishermen first
built a wooden quay against the spring floods. Over the following centuries it grew into one of the busiest ports on
the coast: merchants brought wool, timber and salt, and the town's customs records, kept without a break since 1562,
list every ship that docked, its cargo and the duty it paid.

Historians value these records because they are unusually complete. "Most ports lost their books to fire or damp,"
said the archivist who catalogued them in 1998, "but here someone always made a fair copy and sent it inland." The
copies survived two wars and a flood that reached the first floor of the customs house in 1953.

Today the quay is a conservation area. Visitors can walk along the restored warehouses, read the inscriptions on the
mooring posts and, on the first Sunday of each month, see the original ledgers in the reading room of the museum.
`;

const SAMPLES: Record<string, string> = {
  'English prose': ENGLISH,
  'TypeScript source': repoFile('src/content/paginate.ts'),
  'Markdown with tables, links and code (README)': repoFile('README.md'),
  'JSON with URLs and base64 hashes (package-lock.json)': repoFile('package-lock.json').slice(0, 30_000),
  'markdown table': `| Package | Version | Weekly downloads | Licence |\n| --- | --- | ---: | --- |\n${Array.from(
    { length: 120 },
    (_, index) =>
      `| pkg-${index} | ${index % 5}.${index % 13}.${index % 7} | ${(index * 7919) % 100_000} | ${['MIT', 'Apache-2.0', 'ISC'][index % 3]} |`,
  ).join('\n')}`,
  URLs: Array.from(
    { length: 120 },
    (_, index) =>
      `https://cdn.example.org/assets/${hash('md5', index, 'hex').slice(0, 10)}/app.${index}.js?v=${index * 7919}&ref=nav`,
  ).join('\n'),
  'hex hashes': Array.from({ length: 120 }, (_, index) => hash('sha256', index, 'hex')).join('\n'),
  base64: Array.from({ length: 120 }, (_, index) => hash('sha512', index, 'base64')).join('\n'),
  'base64url JWTs': Array.from(
    { length: 40 },
    (_, index) =>
      `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${Buffer.from(JSON.stringify({ sub: index * 7919, name: `User ${index}` })).toString('base64url')}.${hash('sha256', index, 'base64url')}`,
  ).join('\n'),
  digits: Array.from({ length: 2000 }, (_, index) => String((index * 7919) % 1_000_003)).join(','),
  'CSV numbers': Array.from(
    { length: 300 },
    (_, index) =>
      `${index},${(index * 3.17).toFixed(2)},${index % 17},2024-0${(index % 9) + 1}-1${index % 9}`,
  ).join('\n'),
  'Chinese (simplified)':
    '中国位于亚洲东部，是世界上人口最多的国家之一。首都北京是全国的政治和文化中心，上海则是重要的经济和金融中心。长江和黄河是中华文明的发源地。近几十年来，中国经济快速发展，科技创新不断取得新突破。',
  'Chinese (traditional)':
    '臺灣位於東亞，首都為臺北市。島上山脈縱貫南北，玉山是東北亞最高峰。夜市文化與珍珠奶茶聞名世界，許多旅客慕名而來。',
  Japanese:
    '日本は東アジアに位置する島国で、首都は東京です。四季がはっきりしており、春には桜が咲き、秋には紅葉が楽しめます。伝統文化と最新技術が共存する国として知られています。カタカナ語も多く、コンピューターやインターネットなどの言葉が日常的に使われています。',
  Korean:
    '대한민국은 동아시아의 한반도 남부에 위치한 나라이다. 수도는 서울이며, 부산은 두 번째로 큰 도시이다. 한국어는 한글이라는 고유한 문자로 표기한다. 최근에는 한국의 음악과 드라마가 전 세계적으로 큰 인기를 얻고 있다. ',
  Arabic:
    'تقع مصر في شمال شرق قارة أفريقيا، وعاصمتها القاهرة التي تعد من أكبر المدن في العالم العربي. يمر نهر النيل عبر البلاد من الجنوب إلى الشمال، وقد قامت على ضفافه واحدة من أقدم الحضارات في التاريخ. ',
  'Arabic with diacritics': 'بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ ٱلْحَمْدُ لِلَّهِ رَبِّ ٱلْعَٰلَمِينَ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ مَٰلِكِ يَوْمِ ٱلدِّينِ ',
  Persian:
    'ایران کشوری در غرب آسیا است و پایتخت آن تهران است. زبان رسمی این کشور فارسی است و تاریخ آن به هزاران سال پیش بازمی‌گردد. ',
  Hebrew:
    'ישראל היא מדינה במזרח התיכון. ירושלים היא בירתה, ותל אביב היא המרכז הכלכלי והתרבותי. השפה העברית חודשה במאה התשע עשרה. ',
  'Hindi (Devanagari)':
    'भारत एक विशाल देश है जिसकी संस्कृति हज़ारों वर्ष पुरानी है। यहाँ अनेक भाषाएँ बोली जाती हैं और हर राज्य की अपनी परंपराएँ हैं। दिल्ली देश की राजधानी है, जबकि मुंबई को आर्थिक राजधानी कहा जाता है। ',
  Bengali:
    'বাংলাদেশ দক্ষিণ এশিয়ার একটি রাষ্ট্র। এর রাজধানী ঢাকা, যা দেশের বৃহত্তম শহর। পদ্মা, মেঘনা ও যমুনা নদী দেশটির প্রধান নদী। ',
  Tamil:
    'தமிழ் உலகின் மிகப் பழமையான மொழிகளில் ஒன்றாகும். தமிழ்நாட்டின் தலைநகரம் சென்னை ஆகும். சங்க இலக்கியம் தமிழின் பெருமையைப் பறைசாற்றுகிறது. ',
  Thai: 'ประเทศไทยตั้งอยู่ในภูมิภาคเอเชียตะวันออกเฉียงใต้ มีกรุงเทพมหานครเป็นเมืองหลวงและเมืองที่ใหญ่ที่สุด ภาษาไทยเป็นภาษาราชการ อาหารไทยมีชื่อเสียงไปทั่วโลก ',
  Russian:
    'Россия — крупнейшее по площади государство в мире. Столица страны — Москва, крупнейший город Европы. Русская литература подарила миру Толстого, Достоевского и Чехова. ',
  Kazakh:
    'Қазақстан — Орталық Азиядағы мемлекет. Астанасы — Астана қаласы. Қазақ тілі мемлекеттік тіл болып табылады. ',
  Greek:
    'Η Ελλάδα είναι χώρα της νοτιοανατολικής Ευρώπης. Πρωτεύουσα είναι η Αθήνα, μία από τις αρχαιότερες πόλεις του κόσμου. ',
  Georgian:
    'საქართველო კავკასიის რეგიონში მდებარე ქვეყანაა. მისი დედაქალაქი თბილისია. ქართული ენა უნიკალური დამწერლობით გამოირჩევა. ',
  German:
    'Die Bundesrepublik Deutschland ist ein Bundesstaat in Mitteleuropa. Straßenbahnhaltestellen gibt es in fast jeder größeren Stadt, und die Donaudampfschifffahrtsgesellschaft ist ein bekanntes Wortungetüm. ',
  Finnish:
    'Suomi on valtio Pohjois-Euroopassa. Pääkaupunki on Helsinki. Suomen kieli kuuluu uralilaisiin kieliin, ja siinä on paljon sijamuotoja. ',
  Vietnamese:
    'Việt Nam là một quốc gia nằm ở phía đông bán đảo Đông Dương thuộc khu vực Đông Nam Á. Thủ đô là Hà Nội, còn Thành phố Hồ Chí Minh là trung tâm kinh tế lớn nhất. ',
  // (In runs without spaces js-tiktoken's BPE turns quadratic: 25 s for 6 000 characters.)
  emoji: '😀🎉🚀 🌊👍🏽🇫🇷 ❤️👨‍👩‍👧 🦀🧪✅⚠️\n',
  'text with emoji': 'Great job 🎉 ship it 🚀 love this ❤️ so funny 😂 nice 👍🏽 ',
  'box drawing and maths':
    '┌──────┬──────┐\n│ a    │ b    │\n└──────┴──────┘\n∀x∈ℝ: ∑ᵢ xᵢ² ≥ 0 → α β γ ≤ ≠ ≈ ',
};

for (const [kind, sample] of Object.entries(SAMPLES)) {
  test(`the estimate is not below o200k or cl100k: ${kind}`, () => {
    const text = atLeast(sample);
    const estimate = estimateTokens(text);
    for (const [name, tokenizer] of Object.entries(tokenizers)) {
      const counted = tokenizer.encode(text).length;
      assert.ok(estimate >= counted, `${name}: estimated ${estimate}, counted ${counted}`);
    }
    // A window cut at a budget fits the budget by both counts.
    const window = paginate(text, { startIndex: 0, maxChars: 1e9, maxTokens: 1000 });
    assert.ok(window.truncated, 'the budget cuts the sample');
    for (const [name, tokenizer] of Object.entries(tokenizers)) {
      const counted = tokenizer.encode(window.text).length;
      assert.ok(counted <= 1000, `${name}: a 1000-token window counted ${counted} tokens`);
    }
  });
}

test('English prose is over-counted, but not wildly: under 2× either tokenizer', () => {
  const text = atLeast(ENGLISH, 20_000);
  const estimate = estimateTokens(text);
  for (const [name, tokenizer] of Object.entries(tokenizers)) {
    const ratio = estimate / tokenizer.encode(text).length;
    assert.ok(ratio >= 1 && ratio < 2, `${name}: estimate/counted = ${ratio.toFixed(2)}`);
  }
});

test('measureTokens stops before the code unit that would go over the budget', () => {
  const text = 'word '.repeat(100);
  const whole = measureTokens(text);
  assert.equal(whole.end, text.length);
  const cut = measureTokens(text, 0, text.length, whole.twelfths / 2);
  assert.ok(cut.end > 0 && cut.end < text.length);
  assert.ok(cut.twelfths <= whole.twelfths / 2);
  assert.ok(measureTokens(text, 0, cut.end + 1).twelfths > whole.twelfths / 2);
  assert.equal(estimateTokens(''), 0);
});
