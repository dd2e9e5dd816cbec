package io.streamhouse.connect.protocol;

/** Files a writer closed, serialized for the control topic, with what they hold. */
public record PreparedFiles(
    int payloadVersion, byte[] payload, int files, long records, long bytes) {}
