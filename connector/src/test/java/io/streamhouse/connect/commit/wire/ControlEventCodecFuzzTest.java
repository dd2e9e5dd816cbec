package io.streamhouse.connect.commit.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.testing.Mutations;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * 120,000 hostile inputs for the control-event decoder: random bytes and mutated copies of real
 * events (bit flips, cuts, splices, length and count fields overwritten), sent as they are (the MAC
 * no longer matches) and signed again with the connector's key (as if the key had leaked, so that
 * the field parser itself is under test). Each must decode, be passed over, or end in an {@link
 * InvalidControlEventException}: never another exception, never an error.
 */
class ControlEventCodecFuzzTest {
  private static final int CASES = 120_000;

  @Test
  void everyHostileInputEndsInATypedRejection() {
    ControlEventSigner signer = new ControlEventSigner(ControlEventCodecTest.KEY);
    ControlEventCodec codec = new ControlEventCodec("conn", signer);
    List<byte[]> real = ControlEventCodecTest.samples("conn").stream().map(codec::encode).toList();
    Mutations mutations = new Mutations(20261130L);
    Map<InvalidControlEventException.Reason, Integer> reasons =
        new EnumMap<>(InvalidControlEventException.Reason.class);
    int accepted = 0;
    for (int i = 0; i < CASES; i++) {
      byte[] original = real.get(mutations.nextInt(real.size()));
      byte[] input =
          i % 10_000 == 7
              ? new byte[ControlEventCodec.MAX_EVENT_BYTES + 1 + mutations.nextInt(100)]
              : i % 10 == 0
                  ? mutations.randomBytes(mutations.nextInt(300))
                  : mutations.mutate(original);
      boolean resigned = i % 2 == 1;
      if (resigned) {
        ControlEventCodecTest.resign(signer, input);
      }
      try {
        if (codec.decode(input).isPresent()) {
          accepted++;
          assertThat(resigned || java.util.Arrays.equals(input, original))
              .as("case %d: a changed event without a fresh MAC was accepted", i)
              .isTrue();
        }
      } catch (InvalidControlEventException rejected) {
        reasons.merge(rejected.reason(), 1, Integer::sum);
      } catch (Throwable other) {
        throw new AssertionError(
            "case " + i + " ended in " + other + " instead of a typed rejection", other);
      }
    }
    assertThat(reasons.keySet())
        .as("every kind of rejection was reached: %s", reasons)
        .containsExactlyInAnyOrder(InvalidControlEventException.Reason.values());
    assertThat(reasons.get(InvalidControlEventException.Reason.MALFORMED)).isGreaterThan(1_000);
    assertThat(accepted)
        .as("some mutations keep a signed event valid (a changed offset, payload byte)")
        .isPositive();
  }
}
