package io.streamhouse.connect.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.commit.InvalidControlEventException.Reason;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Control events round-trip under the connector's key; everything else is refused by reason, or
 * passed over.
 */
class ControlEventCodecTest {
  static final TableId TABLE = new TableId("lake", List.of("db"), "orders");
  static final String KEY = "0123456789abcdef-test-key";
  private final ControlEventCodec codec =
      new ControlEventCodec("conn", new ControlEventSigner(KEY));

  static List<ControlEvent> samples(String connector) {
    TopicPartition tp = new TopicPartition("orders", 3);
    return List.of(
        new ControlEvent.StartCommit(connector, 7),
        new ControlEvent.BatchChunk(
            connector,
            7,
            1,
            "conn-1-abc",
            TABLE,
            Map.of(
                tp, new OffsetRange(3, 9), new TopicPartition("orders", 4), new OffsetRange(0, 1)),
            1234,
            2,
            2,
            7,
            4096,
            0,
            1,
            new byte[] {1, 2, 3, 4, 5}),
        new ControlEvent.TaskDone(
            connector, 7, 1, List.of(tp, new TopicPartition("other.topic_x", 0))),
        new ControlEvent.TableCommitted(
            connector,
            7,
            TABLE,
            Map.of(
                "conn-1-abc", BatchPlan.Decision.REJECT, "conn-0-def", BatchPlan.Decision.APPLY)),
        new ControlEvent.RoundRequest(connector, 7, 2),
        new ControlEvent.CompactRequest(
            connector,
            7,
            1,
            "conn-compact-1",
            TABLE,
            List.of(
                new io.streamhouse.connect.protocol.CompactionJob(
                    "partition 00000000 bucket 3", new byte[] {0, 0, 0, 1, 1}))));
  }

  @Test
  void everyEventSurvivesItsEncoding() throws Exception {
    for (ControlEvent event : samples("conn")) {
      ControlEvent decoded = codec.decode(codec.encode(event)).orElseThrow();
      if (event
          instanceof ControlEvent.BatchChunk chunk) { // a record with an array: compare its parts
        assertThat(decoded).usingRecursiveComparison().ignoringFields("ranges").isEqualTo(chunk);
        assertThat(((ControlEvent.BatchChunk) decoded).ranges()).isEqualTo(chunk.ranges());
      } else if (event instanceof ControlEvent.CompactRequest request) {
        assertThat(decoded).usingRecursiveComparison().isEqualTo(request);
      } else {
        assertThat(decoded).isEqualTo(event);
      }
    }
  }

  @Test
  void eventsOfAnotherConnectorArePassedOverUnread() throws Exception {
    ControlEventCodec other =
        new ControlEventCodec("conn-2", new ControlEventSigner("another-key-of-16+"));
    for (ControlEvent event : samples("conn-2")) {
      assertThat(codec.decode(other.encode(event))).isEmpty();
    }
  }

  @Test
  void anEventWithoutTheConnectorsMacIsRefused() {
    ControlEventCodec forger =
        new ControlEventCodec("conn", new ControlEventSigner("a-guessed-key-0000"));
    for (ControlEvent event : samples("conn")) {
      assertThatThrownBy(() -> codec.decode(forger.encode(event)))
          .isInstanceOf(InvalidControlEventException.class)
          .extracting(e -> ((InvalidControlEventException) e).reason())
          .isEqualTo(Reason.BAD_SIGNATURE);
      byte[] unsigned = codec.encode(event);
      byte[] stripped =
          java.util.Arrays.copyOf(unsigned, unsigned.length - ControlEventSigner.MAC_BYTES);
      assertThatThrownBy(() -> codec.decode(stripped))
          .isInstanceOf(InvalidControlEventException.class);
      byte[] tampered = unsigned.clone();
      tampered[tampered.length - ControlEventSigner.MAC_BYTES - 1] ^= 1;
      assertThatThrownBy(() -> codec.decode(tampered))
          .isInstanceOf(InvalidControlEventException.class)
          .extracting(e -> ((InvalidControlEventException) e).reason())
          .isEqualTo(Reason.BAD_SIGNATURE);
    }
  }

  @Test
  void otherVersionsAndSizesAreRefusedBeforeTheMacIsChecked() {
    byte[] future = codec.encode(samples("conn").get(0));
    future[0] = 9;
    assertThatThrownBy(() -> codec.decode(future))
        .isInstanceOf(InvalidControlEventException.class)
        .hasMessage("control event version 9 is not supported (this plugin reads version 2)");
    assertThatThrownBy(() -> codec.decode(new byte[ControlEventCodec.MAX_EVENT_BYTES + 1]))
        .isInstanceOf(InvalidControlEventException.class)
        .extracting(e -> ((InvalidControlEventException) e).reason())
        .isEqualTo(Reason.OVERSIZED);
    assertThatThrownBy(() -> codec.decode(new byte[3]))
        .isInstanceOf(InvalidControlEventException.class)
        .extracting(e -> ((InvalidControlEventException) e).reason())
        .isEqualTo(Reason.TRUNCATED);
  }

  @Test
  void aSignedEventWithFieldsOutOfRangeIsRefusedAsMalformed() throws Exception {
    ControlEventSigner signer = new ControlEventSigner(KEY);
    byte[] committed = codec.encode(samples("conn").get(3));
    int decision =
        committed.length - ControlEventSigner.MAC_BYTES - 1; // the last decision's ordinal
    committed[decision] = 3;
    resign(signer, committed);
    assertThatThrownBy(() -> codec.decode(committed))
        .isInstanceOf(InvalidControlEventException.class)
        .hasMessageContaining("decision 3 of batch conn-")
        .hasMessageEndingWith(" is unknown")
        .extracting(e -> ((InvalidControlEventException) e).reason())
        .isEqualTo(Reason.MALFORMED);
    byte[] chunk = codec.encode(samples("conn").get(1));
    byte[] longer =
        java.util.Arrays.copyOf(chunk, chunk.length + 1); // one byte more before the MAC
    System.arraycopy(
        chunk,
        chunk.length - ControlEventSigner.MAC_BYTES,
        longer,
        longer.length - ControlEventSigner.MAC_BYTES,
        ControlEventSigner.MAC_BYTES);
    longer[chunk.length - ControlEventSigner.MAC_BYTES] = 0;
    resign(signer, longer);
    assertThatThrownBy(() -> codec.decode(longer))
        .isInstanceOf(InvalidControlEventException.class)
        .hasMessageContaining("unread bytes");
    assertThat(codec.decode(codec.encode(samples("conn").get(0))))
        .isEqualTo(Optional.of(samples("conn").get(0)));
  }

  /**
   * Puts the MAC of the bytes before the last 32 into the last 32, as a holder of the key could.
   */
  static void resign(ControlEventSigner signer, byte[] event) {
    if (event.length < ControlEventSigner.MAC_BYTES) {
      return;
    }
    byte[] mac = signer.sign(event, event.length - ControlEventSigner.MAC_BYTES);
    System.arraycopy(mac, 0, event, event.length - ControlEventSigner.MAC_BYTES, mac.length);
  }
}
