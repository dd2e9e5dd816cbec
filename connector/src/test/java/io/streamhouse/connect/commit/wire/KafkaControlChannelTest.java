package io.streamhouse.connect.commit.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;

/** A control topic created a moment ago may not be in the client's metadata yet. */
class KafkaControlChannelTest {
  private final MockConsumer<byte[], byte[]> consumer =
      new MockConsumer<>(AutoOffsetResetStrategy.LATEST.name());

  @Test
  void thePartitionsOfAControlTopicTheMetadataDoesNotKnowYetAreAskedForAgain() throws Exception {
    List<PartitionInfo> partitions = List.of(new PartitionInfo("ctl", 0, null, null, null));
    CompletableFuture<Void> known =
        CompletableFuture.runAsync(
            () -> consumer.updatePartitions("ctl", partitions),
            CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

    assertThat(
            KafkaControlChannel.partitionsOf(
                consumer, "ctl", "orders-sink", Duration.ofSeconds(10)))
        .isEqualTo(partitions);
    known.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aControlTopicThatNeverAppearsFailsNamingTheConnectorAndTopic() {
    assertThatThrownBy(
            () ->
                KafkaControlChannel.partitionsOf(
                    consumer, "ctl", "orders-sink", Duration.ofMillis(300)))
        .hasMessage(
            "Connector orders-sink: control topic ctl has no partitions known to the brokers after 300 ms");
  }
}
