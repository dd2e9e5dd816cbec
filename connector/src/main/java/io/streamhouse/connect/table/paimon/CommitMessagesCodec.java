package io.streamhouse.connect.table.paimon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputSerializer;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;

/**
 * Paimon commit messages as control-topic payload. The payload version is Paimon's own
 * serializer version, sent with the bytes: a coordinator reads what an older task wrote, and a
 * newer payload than it knows fails loudly instead of being misread.
 */
final class CommitMessagesCodec {
  static final int VERSION = new CommitMessageSerializer().getVersion();

  private CommitMessagesCodec() {}

  static byte[] encode(List<CommitMessage> messages) {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    try {
      new CommitMessageSerializer().serializeList(messages, out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize Paimon commit messages", e);
    }
    return out.getCopyOfBuffer();
  }

  static List<CommitMessage> decode(int version, byte[] payload) {
    if (version > VERSION) {
      throw new IllegalStateException("Paimon commit messages of serializer version " + version
          + " are newer than this plugin's (" + VERSION + "): upgrade the plugin on every worker");
    }
    try {
      return new CommitMessageSerializer().deserializeList(version, new DataInputDeserializer(payload));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read Paimon commit messages of version " + version, e);
    }
  }
}
