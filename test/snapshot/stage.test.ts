import { describe, expect, test } from "bun:test";
import { sideBySide } from "../../src/snapshot/stage.ts";

describe("sideBySide: two build tasks at once", () => {
  const later = <T>(ms: number, value: T, done: string[]) =>
    new Promise<T>((resolve) =>
      setTimeout(() => {
        done.push(String(value));
        resolve(value);
      }, ms),
    );

  test("gives both results in order", async () => {
    expect(await sideBySide([later(20, "a", []), later(5, 2, [])])).toEqual(["a", 2]);
  });

  test("a failure is thrown only once the other task has finished (its files would land in a removed folder)", async () => {
    const done: string[] = [];
    const failing = Promise.reject(new Error("disk full"));
    const outcome = sideBySide([failing, later(30, "still writing", done)]).then(
      () => "resolved",
      (error: Error) => `${error.message} after [${done.join(", ")}]`,
    );
    expect(await outcome).toBe("disk full after [still writing]");
  });

  test("when both fail, the first task's failure is the one thrown", async () => {
    await expect(sideBySide([Promise.reject(new Error("first")), Promise.reject(new Error("second"))])).rejects.toThrow("first");
  });
});
