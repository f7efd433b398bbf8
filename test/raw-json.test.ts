// serializeJson splices every RawJson's text, unparsed, where its value goes: several in one value, in
// arrays and nested objects, the empty object's fast path, and texts that look like the splice's own marks.
import { describe, expect, it } from 'vitest';
import { RawJson, serializeJson, serializeWith } from '../src/shared/raw-json.js';

describe('serializeJson', () => {
  it('writes each RawJson as its own text, in order, wherever it is', () => {
    const value = {
      a: new RawJson('{"10":1,"2":2.50}'),
      list: [new RawJson('1e3'), 'plain', new RawJson('[ 1 ,2 ]')],
      deep: { b: new RawJson('{"x":{"y":12345678901234567890}}') },
      tail: new RawJson('null'),
    };
    expect(serializeJson(value)).toBe(
      '{"a":{"10":1,"2":2.50},"list":[1e3,"plain",[ 1 ,2 ]],"deep":{"b":{"x":{"y":12345678901234567890}}},"tail":null}',
    );
  });

  it('writes an empty object as {} and any other spelling of it as sent', () => {
    expect(serializeJson({ metadata: new RawJson('{}'), n: 1 })).toBe('{"metadata":{},"n":1}');
    expect(serializeJson({ metadata: new RawJson('{ }') })).toBe('{"metadata":{ }}');
    expect(serializeJson([new RawJson('{}'), new RawJson('{"a":1}'), new RawJson('{}')])).toBe('[{},{"a":1},{}]');
  });

  it('splices a text that holds what looks like a mark of its own as it is', () => {
    // Ten RawJson values: the mark of the first is a prefix of the tenth's; each lands in its own place.
    const texts = Array.from({ length: 11 }, (_, i) => `{"i":${i},"s":"raw:${i}"}`);
    const out = serializeJson(texts.map((t) => new RawJson(t)));
    expect(out).toBe(`[${texts.join(',')}]`);
    expect(JSON.parse(out)).toHaveLength(11);
  });

  it('inside serializeWith, an inner serialization shares the outer splice', () => {
    const out = serializeWith(() => `[${serializeJson({ a: new RawJson('1.50') })},${JSON.stringify(new RawJson('{"b":2}'))}]`);
    expect(out).toBe('[{"a":1.50},{"b":2}]');
  });

  it('outside serializeJson a RawJson stands for its parsed value', () => {
    expect(JSON.stringify({ m: new RawJson('{"a":1.50}') })).toBe('{"m":{"a":1.5}}');
    expect(JSON.stringify({ m: new RawJson('{}') })).toBe('{"m":{}}');
  });
});
