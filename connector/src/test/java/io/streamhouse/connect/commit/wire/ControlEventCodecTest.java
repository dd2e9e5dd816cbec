package io.streamhouse.connect.commit.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.commit.wire.InvalidControlEventException.Reason;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
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
        new ControlEvent.StartCommit(connector, 7, 1_796_000_000_000_123L),
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
            new byte[] {1, 2, 3, 4, 5},
            TransactionCounts.NONE),
        new ControlEvent.TaskDone(
            connector, 7, 1, List.of(tp, new TopicPartition("other.topic_x", 0)), List.of()),
        new ControlEvent.TableCommitted(
            connector,
            7,
            TABLE,
            Map.of(
                "conn-1-abc", BatchPlan.Decision.REJECT, "conn-0-def", BatchPlan.Decision.APPLY)),
        new ControlEvent.RoundRequest(connector, 7, 2),
        new ControlEvent.StartCommit(connector, 8, 3, List.of("571:3271", "tx-2")),
        new ControlEvent.TaskDone(connector, 8, 0, List.of(tp), List.of("tx-3", "tx-4")),
        new ControlEvent.BatchChunk(
            connector,
            8,
            0,
            "conn-0-tx",
            TABLE,
            Map.of(tp, new OffsetRange(9, 12)),
            1234,
            2,
            1,
            3,
            512,
            0,
            1,
            new byte[] {6},
            new TransactionCounts(
                Map.of("571:3271", Map.of("bank.public.a", 2L, "bank.public.b", 1L)),
                Map.of("571:3271", Map.of("bank.public.a", 2L, "bank.public.b", 1L)))),
        new ControlEvent.CompactRequest(
            connector,
            7,
            1,
            "conn-compact-1",
            TABLE,
            List.of(new CompactionJob("partition 00000000 bucket 3", new byte[] {0, 0, 0, 1, 1}))),
        compactionResult(connector));
  }

  /** The result of a compaction job, in one chunk: the last of {@link #samples}. */
  static ControlEvent.CompactionResultChunk compactionResult(String connector) {
    return new ControlEvent.CompactionResultChunk(
        connector, 7, 1, "conn-compact-1", TABLE, 1, 2, 40, 8192, 0, 1, new byte[] {9, 8, 7, 6, 5});
  }

  @Test
  void everyEventSurvivesItsEncoding() throws Exception {
    for (ControlEvent event : samples("conn")) {
      ControlEvent decoded = codec.decode(codec.encode(event)).orElseThrow();
      if (event
          instanceof ControlEvent.BatchChunk chunk) { // a record with an array: compare its parts
        assertThat(decoded).usingRecursiveComparison().ignoringFields("ranges").isEqualTo(chunk);
        assertThat(((ControlEvent.BatchChunk) decoded).ranges()).isEqualTo(chunk.ranges());
      } else if (event instanceof ControlEvent.CompactionResultChunk result) {
        assertThat(decoded)
            .isInstanceOf(ControlEvent.CompactionResultChunk.class)
            .usingRecursiveComparison()
            .isEqualTo(result);
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
        .hasMessage("control event version 9 is not supported (this plugin reads version 3)");
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
        .as("read as the start of the batch's transaction counts, which it does not hold")
        .isInstanceOf(InvalidControlEventException.class)
        .hasMessageContaining("transactions seen needs 4 bytes, 1 remain");
    assertThat(codec.decode(codec.encode(samples("conn").get(0))))
        .isEqualTo(Optional.of(samples("conn").get(0)));
  }

  /**
   * A compaction result read from the control topic is as untrusted as any event: cut short at any
   * byte, or signed with fields out of range, it ends in a typed rejection (which the channel
   * counts and logs, passing on to the next event), never in another exception.
   */
  @Test
  void aTruncatedOrGarbledCompactionResultIsRefusedAndCounted() throws Exception {
    ControlEventSigner signer = new ControlEventSigner(KEY);
    byte[] whole = codec.encode(compactionResult("conn"));
    int body = whole.length - ControlEventSigner.MAC_BYTES;
    ControlEventRejections rejections = new ControlEventRejections("conn-0");
    // Cut short anywhere after the connector's name, and signed again: truncated or malformed.
    for (int cut = 1 + 2 + 4; cut < body; cut++) {
      byte[] truncated = java.util.Arrays.copyOf(whole, cut + ControlEventSigner.MAC_BYTES);
      resign(signer, truncated);
      int at = cut;
      assertThatThrownBy(() -> codec.decode(truncated))
          .as("cut after %d of %d bytes", at, body)
          .isInstanceOf(InvalidControlEventException.class)
          .satisfies(e -> rejections.rejected("ctl", 0, at, (InvalidControlEventException) e))
          .extracting(e -> ((InvalidControlEventException) e).reason())
          .isIn(Reason.TRUNCATED, Reason.MALFORMED);
    }
    assertThat(rejections.total()).isEqualTo(body - (1 + 2 + 4));
    // The end of the event: chunk index, chunk count, payload length, 5 payload bytes, the MAC.
    int data = body - 5;
    int length = data - 4;
    int chunks = length - 4;
    int chunk = chunks - 4;
    assertThat(garbled(signer, whole, chunk, 1))
        .as("chunk 1 of 1")
        .hasMessageContaining("chunk count");
    assertThat(garbled(signer, whole, chunks, ControlEventCodec.MAX_CHUNKS + 1))
        .hasMessageContaining("chunk count");
    assertThat(garbled(signer, whole, length, ControlChannel.CHUNK_BYTES + 1))
        .hasMessageContaining("payload length");
    assertThat(garbled(signer, whole, length, -1)).hasMessageContaining("payload length");
    // The job id's length (after the type, commit id and task id) claims more than the event holds.
    int jobId = 1 + 2 + 4 + 1 + 8 + 4;
    byte[] longId = whole.clone();
    longId[jobId] = (byte) 0x03;
    resign(signer, longId);
    assertThatThrownBy(() -> codec.decode(longId))
        .isInstanceOf(InvalidControlEventException.class)
        .hasMessageContaining("job id");
    // Unchanged, it still decodes.
    assertThat(codec.decode(whole)).isPresent();
  }

  /** {@code event} with the int at {@code offset} set to {@code value}, signed again: refused. */
  private InvalidControlEventException garbled(
      ControlEventSigner signer, byte[] event, int offset, int value) {
    byte[] copy = event.clone();
    java.nio.ByteBuffer.wrap(copy).putInt(offset, value);
    resign(signer, copy);
    InvalidControlEventException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            InvalidControlEventException.class, () -> codec.decode(copy));
    assertThat(e).as("int %d at %d", value, offset).isNotNull();
    assertThat(e.reason()).isEqualTo(Reason.MALFORMED);
    return e;
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
