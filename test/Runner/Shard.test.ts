/**
 * `--shard i/n`: what it reads, and which items each part takes. The parts are pinned, not computed
 * here: a change of hash would move cases between the machines of a sharded job, and the shards of a
 * job already split would no longer add up to its golden set.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { inShard, parseShard, type Shard } from "../../src/Runner/Shard.js"

const refused = (text: string) => Either.left(`${JSON.stringify(text)}: expected i/n with 1 ≤ i ≤ n, such as 2/4`)

/** The parts of `count` that take `key`. */
const partsOf = (key: string, count: number): ReadonlyArray<number> =>
  Array.from({ length: count }, (_, i) => i + 1).filter((index) => inShard({ index, count }, key))

describe("parseShard", () => {
  it("reads i/n of one digit or several, around blanks", () => {
    expect(parseShard("2/4")).toEqual(Either.right({ index: 2, count: 4 }))
    expect(parseShard("10/12")).toEqual(Either.right({ index: 10, count: 12 }))
    expect(parseShard("12/12")).toEqual(Either.right({ index: 12, count: 12 }))
    expect(parseShard("1/1")).toEqual(Either.right({ index: 1, count: 1 }))
    expect(parseShard(" 3/3\n")).toEqual(Either.right({ index: 3, count: 3 }))
    expect(parseShard("007/010")).toEqual(Either.right({ index: 7, count: 10 }))
  })

  it("refuses a part 0, a part past the count, a count of 0, and anything but two whole numbers", () => {
    const outOfRange = ["0/3", "4/3", "13/12", "0/0", "1/0"]
    const notNumbers = ["", "3", "/3", "1/", "-1/3", "1.5/3", "1/3/5", "a/b", "1 / 3", "2/4x", "x2/4"]
    for (const text of [...outOfRange, ...notNumbers]) {
      expect(parseShard(text)).toEqual(refused(text))
    }
  })

  it("reads back every i/n it accepts as the numbers written", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat(), (count, n) => {
        const index = (n % count) + 1
        expect(parseShard(`${index}/${count}`)).toEqual(Either.right({ index, count }))
        expect(Either.isLeft(parseShard(`${count + 1 + (n % 3)}/${count}`))).toBe(true)
        expect(Either.isLeft(parseShard(`0/${count}`))).toBe(true)
      })
    )
  })
})

describe("inShard", () => {
  it("puts keys in the parts FNV-1a's published values give", () => {
    // FNV-1a 32-bit: "" is 0x811c9dc5, "a" 0xe40c292c, "foobar" 0xbf9cf968.
    expect(partsOf("", 12)).toEqual([0x811c9dc5 % 12 + 1])
    expect(partsOf("a", 12)).toEqual([0xe40c292c % 12 + 1])
    expect(partsOf("foobar", 7)).toEqual([0xbf9cf968 % 7 + 1])
    expect(partsOf("a", 1)).toEqual([1])
  })

  it("keeps the parts of 12 and of 3 that sharded jobs already use", () => {
    const pinned: ReadonlyArray<readonly [string, number, number]> = [
      ["case-0", 1, 1],
      ["case-1", 12, 3],
      ["case-2", 11, 2],
      ["case-3", 10, 1],
      ["case-18", 10, 1],
      ["case-19", 11, 2],
      ["case-30", 12, 3],
      ["docs.where-payments-api-catalog-retry", 2, 2],
      ["ops.rollback", 4, 1],
      ["é", 5, 2]
    ]
    for (const [key, ofTwelve, ofThree] of pinned) {
      expect([key, partsOf(key, 12), partsOf(key, 3)]).toEqual([key, [ofTwelve], [ofThree]])
    }
  })

  it("gives every key to exactly one part of n, whatever the key", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "grapheme" })), fc.integer({ min: 1, max: 64 }), (key, n) => {
        expect(partsOf(key, n)).toHaveLength(1)
      })
    )
  })

  it("takes no key into a part outside 1..n", () => {
    const outside: ReadonlyArray<Shard> = [{ index: 0, count: 3 }, { index: 4, count: 3 }]
    for (const shard of outside) {
      for (let i = 0; i < 100; i++) expect(inShard(shard, `case-${i}`)).toBe(false)
    }
  })
})
