package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The key index's map agrees with a HashMap through puts, overwrites and removes, as it grows. */
class KeyPositionsTest {
  @Test
  void agreesWithAHashMapThroughRandomPutsAndRemoves() {
    KeyPositions positions = new KeyPositions();
    Map<Long, Long> model = new HashMap<>();
    Random random = new Random(11);
    for (int i = 0; i < 300_000; i++) {
      // Few distinct keys whose low words collide often: long probe chains to shift back.
      long k = random.nextInt(20_000);
      long[] key = {k & 0xFF, k};
      if (random.nextInt(3) == 0) {
        Long expected = model.remove(k);
        assertThat(positions.remove(key))
            .isEqualTo(expected == null ? KeyPositions.NONE : expected);
      } else {
        long value = random.nextInt(Integer.MAX_VALUE);
        Long expected = model.put(k, value);
        assertThat(positions.put(key, value))
            .isEqualTo(expected == null ? KeyPositions.NONE : expected);
      }
    }
    assertAgrees(positions, model);
  }

  /** An ordered map keeps each key's order value with its position through growth and removals. */
  @Test
  void orderValuesFollowTheirKeysThroughGrowthAndRemovals() {
    KeyPositions positions = new KeyPositions(0, true);
    Map<Long, Long> orders = new HashMap<>();
    Random random = new Random(5);
    for (int i = 0; i < 200_000; i++) {
      long k = random.nextInt(30_000);
      long[] key = {k & 0xFF, k};
      if (random.nextInt(4) == 0) {
        positions.remove(key);
        orders.remove(k);
      } else {
        long order = random.nextLong();
        positions.put(key, k, order);
        orders.put(k, order);
      }
    }
    // A translation that drops every seventh key (its position is the key) shifts entries back.
    positions.translateAll(p -> p % 7 == 0 ? KeyPositions.NONE : p);
    orders.keySet().removeIf(k -> k % 7 == 0);
    for (long k = 0; k < 30_000; k++) {
      assertThat(positions.orderOf(new long[] {k & 0xFF, k}))
          .as("order of key %d", k)
          .isEqualTo(orders.getOrDefault(k, KeyPositions.NO_ORDER));
    }
    assertThat(new KeyPositions().orderOf(new long[] {1, 1})).isEqualTo(KeyPositions.NO_ORDER);
  }

  /**
   * A translation moves every position and removes the keys whose position it drops, with colliding
   * keys (long probe chains) so that the removals shift entries that were translated already.
   */
  @Test
  void translatingMovesEveryPositionAndRemovesTheKeysOfDroppedOnes() {
    KeyPositions positions = new KeyPositions();
    Map<Long, Long> model = new HashMap<>();
    for (long k = 0; k < 20_000; k++) {
      positions.put(new long[] {k & 0xFF, k}, k * 10);
      model.put(k, k * 10);
    }
    // Positions of keys divisible by 3 are dropped; the others move by one.
    int dropped = positions.translateAll(p -> (p / 10) % 3 == 0 ? KeyPositions.NONE : p + 1);
    model.entrySet().removeIf(e -> e.getKey() % 3 == 0);
    model.replaceAll((k, v) -> v + 1);

    assertThat(dropped).isEqualTo(6_667);
    assertAgrees(positions, model);
  }

  /**
   * Keys 0 to 19,999 (low word the key's last byte: colliding hashes) hold what {@code model} says.
   */
  private static void assertAgrees(KeyPositions positions, Map<Long, Long> model) {
    assertThat(positions.size()).isEqualTo(model.size());
    for (long k = 0; k < 20_000; k++) {
      Long expected = model.get(k);
      assertThat(positions.get(new long[] {k & 0xFF, k}))
          .as("key %d", k)
          .isEqualTo(expected == null ? KeyPositions.NONE : expected);
    }
  }

  @Test
  void aMillionKeysTakeFortyEightMebibytes() {
    KeyPositions positions = new KeyPositions();
    for (long k = 0; k < 1_000_000; k++) {
      positions.put(new long[] {k * 0x9E3779B97F4A7C15L, k}, k);
    }
    assertThat(positions.size()).isEqualTo(1_000_000);
    assertThat(positions.bytes()).isEqualTo(24L * (1 << 21));
  }

  /**
   * Sized for the keys a snapshot's summary counts, the table does not grow while the index is
   * read: ten million keys take 2^24 slots (384 MiB) from the start, never the 1.5 times of a
   * growth step; a hint beyond 2^24 slots (a nonsense summary) allocates no more than that.
   */
  @Test
  void aSizeHintAvoidsGrowingAndIsBounded() {
    assertThat(new KeyPositions(10_000_000, false).bytes()).isEqualTo(24L << 24);
    assertThat(new KeyPositions(Long.MAX_VALUE / 2, false).bytes()).isEqualTo(24L << 24);
    assertThat(new KeyPositions(0, false).bytes()).isEqualTo(24L << 10);
    KeyPositions hinted = new KeyPositions(1_000_000, false);
    long before = hinted.bytes();
    for (long k = 0; k < 1_000_000; k++) {
      hinted.put(new long[] {k * 0x9E3779B97F4A7C15L, k}, k);
    }
    assertThat(hinted.bytes()).as("no growth while the hinted keys come").isEqualTo(before);
    assertThat(before).isEqualTo(24L << 21);
  }
}
