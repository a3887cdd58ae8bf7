import t from 'tap';
import { childElement, childrenNamed, childText, decodeXmlText, parseXmlSafely, sniffRootName, textAt } from './xml.ts';

const ok = (text: string | Uint8Array, options = {}) => {
  const result = parseXmlSafely(text, options);
  if (!result.ok) throw new Error(`expected ok, got ${result.reason}`);
  return result;
};
const reason = (text: string | Uint8Array, options = {}): string => {
  const result = parseXmlSafely(text, options);
  return result.ok ? 'ok' : result.reason;
};

t.test('namespace prefixes and default namespaces disappear; values stay strings', async (t) => {
  const prefixed = ok('<a:Plates xmlns:a="urn:x"><a:Plate><a:picName>0070000000000000000000001</a:picName></a:Plate></a:Plates>', { arrayTags: ['Plate'] });
  t.equal(prefixed.rootName, 'Plates');
  t.same(prefixed.root, { Plate: [{ picName: '0070000000000000000000001' }] });
  const plain = ok('<?xml version="1.0"?>\n<Root xmlns="http://www.isapi.org/ver20/XMLSchema" version="2.0"><n>12</n><f>1.50</f><b>true</b></Root>');
  t.same(plain.doc, { Root: { n: '12', f: '1.50', b: 'true' } }, 'no number/boolean conversion, no attributes');
});

t.test('arrayTags makes a single element an array, other repeats still become arrays', async (t) => {
  const one = ok('<L><Plate><x>1</x></Plate><y>a</y><y>b</y></L>', { arrayTags: ['Plate'] });
  t.same(one.root, { Plate: [{ x: '1' }], y: ['a', 'b'] });
  const none = ok('<L><z>1</z></L>', { arrayTags: ['Plate'] });
  t.same(childrenNamed(none.root, 'Plate'), []);
});

t.test('predefined entities and numeric references are decoded, others stay literal', async (t) => {
  t.equal(ok('<a>A &amp; B &lt;&gt; &quot;&apos; &#65;&#x42; &nbsp; &#0;</a>').root, 'A & B <> "\' AB &nbsp; \uFFFD');
  t.equal(decodeXmlText('no refs'), 'no refs');
  t.equal(decodeXmlText('&#x1F600;&#55296;'), '\u{1F600}\uFFFD', 'astral ok, lone surrogate replaced');
});

t.test('DTDs and entity declarations are refused before parsing', async (t) => {
  t.match(reason('<?xml version="1.0"?><!DOCTYPE a><a/>'), /DOCTYPE/);
  t.match(reason('<!doctype a [<!ENTITY x "y">]><a>&x;</a>'), /DOCTYPE/);
  t.match(reason('<a><!ENTITY x "y"></a>'), /ENTITY/);
});

t.test('caps: size, numeric references, depth', async (t) => {
  t.match(reason(`<a>${'x'.repeat(100)}</a>`, { maxBytes: 50 }), /exceeds the 50-byte cap/);
  t.equal(reason(`<a>${'x'.repeat(40)}</a>`, { maxBytes: 50 }), 'ok');
  t.match(reason(`<a>${'&#65;'.repeat(11)}</a>`, { maxNumericRefs: 10 }), /more than 10 numeric/);
  t.equal(reason(`<a>${'&#65;'.repeat(10)}</a>`, { maxNumericRefs: 10 }), 'ok');
  t.match(reason(`${'<a>'.repeat(9)}${'</a>'.repeat(9)}`, { maxDepth: 8 }), /nested/i);
  t.equal(reason(`${'<a>'.repeat(8)}${'</a>'.repeat(8)}`, { maxDepth: 8 }), 'ok');
});

t.test('malformed documents are reasons, not exceptions', async (t) => {
  t.match(reason('<a><b>x</b>'), /malformed XML/, 'truncated');
  t.match(reason('<a/><b/>'), /root/, 'two roots');
  t.match(reason('plain text'), /not XML/);
  t.match(reason(''), /not XML/);
  t.match(reason('<a>x & y</a>'), /malformed/);
  t.match(reason('<a><__proto__><polluted>1</polluted></__proto__></a>'), /malformed/);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 256);
  t.doesNotThrow(() => parseXmlSafely(random));
});

t.test('a UTF-8 BOM and non-ASCII text survive', async (t) => {
  const bytes = new TextEncoder().encode('\uFEFF<a><p>蓝京A12345</p></a>');
  t.equal(textAt(ok(bytes).root, 'p'), '蓝京A12345');
});

t.test('child helpers read by local name and refuse wrong types', async (t) => {
  const { root } = ok('<r><ANPR><vehicleInfo><vehicleType>2</vehicleType></vehicleInfo><vehicleType>SUVMPV</vehicleType><e/></ANPR></r>');
  t.equal(textAt(root, 'ANPR', 'vehicleType'), 'SUVMPV');
  t.equal(textAt(root, 'ANPR', 'vehicleInfo', 'vehicleType'), '2');
  t.equal(textAt(root, 'ANPR', 'e'), '', 'empty element reads as empty text');
  t.equal(childText(root, 'ANPR'), undefined, 'element content is not text');
  t.equal(childElement(root, 'missing'), undefined);
  t.equal(textAt(root, 'missing', 'deeper'), undefined);
  t.same(childrenNamed({ 'x:Plate': '1' }, 'Plate'), ['1'], 'a left-over prefix is ignored');
});

t.test('sniffRootName reads the first element without parsing', async (t) => {
  t.equal(sniffRootName('\uFEFF<?xml version="1.0"?>\n<!-- c -->\n<ns:EventNotificationAlert xmlns:ns="x">'), 'EventNotificationAlert');
  t.equal(sniffRootName(new TextEncoder().encode('  <Plates/>')), 'Plates');
  t.equal(sniffRootName('{"a":1}'), undefined);
  t.equal(sniffRootName('<!DOCTYPE a><a/>'), undefined);
  t.equal(sniffRootName('<?xml version="1.0"'), undefined);
});
